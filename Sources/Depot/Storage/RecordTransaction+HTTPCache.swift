import Foundation

extension RecordTransaction {
    /// The cache entry stored under `key`; nil for none or one that cannot be read.
    func httpCacheEntry(_ key: String) throws -> HTTPCacheEntry? {
        try fetch(collection: HTTPCache.collection, id: key).flatMap { HTTPCacheEntry(object: $0.object) }
    }

    /// Stores `entry` under `key`, or forgets the entry there when `entry` is nil, within the
    /// store's bound (``HTTPCacheLimit``): past it, the least recently stored entries go.
    func storeHTTPCacheEntry(_ entry: HTTPCacheEntry?, key: String) throws {
        let old = try fetch(collection: HTTPCache.collection, id: key)
        guard let entry else {
            if old != nil {
                try delete(collection: HTTPCache.collection, id: key)
                try accountHTTPCacheEntry(replacing: old, newBytes: nil)
            }
            return
        }
        let record = StoredRecord(collection: HTTPCache.collection, id: key, object: entry.object, syncState: .synced)
        try upsert(record)
        try accountHTTPCacheEntry(replacing: old, newBytes: try EncodedRecord.text(record.object).utf8.count)
    }

    /// Forgets the cache entry of record `id` of `collection`: a write changed it, or it is gone,
    /// so the server's validators no longer describe what the store holds.
    func dropHTTPCacheEntry(collection: String, id: String) throws {
        try storeHTTPCacheEntry(nil, key: HTTPCache.recordKey(collection: collection, id: id))
    }

    /// The token the collection's list and page entries must carry to be used: "" until the first
    /// write of the collection, then a new one at each write.
    func listGeneration(collection: String) throws -> String {
        let record = try fetch(collection: HTTPCache.generations, id: collection)
        return record?.object["generation"]?.stringValue ?? ""
    }

    /// Makes every list and page entry of `collection` stale at once: the collection's token
    /// changes (a random one, so a token is never used twice), and an entry stored under another
    /// token is not used again.
    func invalidateLists(collection: String) throws {
        try upsert(
            StoredRecord(
                collection: HTTPCache.generations, id: collection,
                object: ["generation": .string(UUID.randomV4().uuidString)], syncState: .synced))
    }
}
