import Foundation

extension StorageTransaction {
    /// The cache entry stored under `key`; nil for none or one that cannot be read.
    func httpCacheEntry(_ key: String) throws -> HTTPCacheEntry? {
        try fetch(collection: HTTPCache.collection, id: key).flatMap { HTTPCacheEntry(object: $0.object) }
    }

    /// Stores `entry` under `key`, or forgets the entry there when `entry` is nil.
    func storeHTTPCacheEntry(_ entry: HTTPCacheEntry?, key: String) throws {
        guard let entry else {
            try delete(collection: HTTPCache.collection, id: key)
            return
        }
        try upsert(StoredRecord(collection: HTTPCache.collection, id: key, object: entry.object, syncState: .synced))
    }

    /// Forgets the cache entry of record `id` of `collection`: a local write changed it, so the
    /// server's validators no longer describe what the store holds.
    func dropHTTPCacheEntry(collection: String, id: String) throws {
        try delete(collection: HTTPCache.collection, id: HTTPCache.recordKey(collection: collection, id: id))
    }
}
