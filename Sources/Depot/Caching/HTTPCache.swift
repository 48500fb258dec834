import Foundation
import HTTPTypes

/// Where the store's HTTP cache lives and how it names things: one synced record per GET answer
/// (``HTTPCacheEntry``) in a collection of Depot's own, written in the transaction that stores
/// the records it describes, so every store keeps it without a schema of its own.
enum HTTPCache {
    /// The reserved collection.
    static let collection = "__depot_http_cache"

    /// Request headers every entry varies on, whatever the server's `Vary` says: every header
    /// that identifies a caller (and the media type), so a private cache never gives one account
    /// (or one media type) another's answer. The app adds its own
    /// (``RepositoryConfiguration/identifyingHeaders``).
    static let alwaysVaried = ["accept", "authorization", "cookie", "proxy-authorization"]

    /// The longest validator kept; a longer one is cut (and then simply never matches).
    static let maximumValidatorLength = 1024

    /// The most header names an entry varies on; a longer `Vary` is treated as `Vary: *`.
    static let maximumVaried = 32

    /// The record id of the entry of record `id` of `collection`.
    static func recordKey(collection: String, id: String) -> String {
        "r" + MovedIDs.key(collection: collection, id: id)
    }

    /// The record a ``recordKey(collection:id:)`` names; nil for any other key (a page's).
    static func entity(ofRecordKey key: String) -> (collection: String, id: String)? {
        guard key.first == "r" else { return nil }
        return MovedIDs.entity(ofKey: key.dropFirst())
    }

    /// The record id of the entry of the list page at `url` of `collection`.
    static func pageKey(collection: String, url: String) -> String {
        "p" + MovedIDs.key(collection: collection, id: url)
    }

    /// The reserved collection of list tokens, one record per app collection: the token a list
    /// or page entry of that collection must carry to be used
    /// (``RecordTransaction/listGeneration(collection:)``). Kept apart from the entries, so a
    /// bound on the entries never evicts one.
    static let generations = "__depot_http_cache_lists"

    /// The names an entry varies on: ``alwaysVaried``, the app's `identifying` headers and the
    /// answer's `Vary`, lower-cased, sorted, once each.
    static func varied(_ vary: [String], identifying: [String] = []) -> [String] {
        if vary.contains("*") || vary.count > maximumVaried { return ["*"] }
        return Array(Set(alwaysVaried + (identifying + vary).map { $0.lowercased() })).sorted()
    }

    /// A request's header fields as name/value pairs.
    static func fields(_ headers: HTTPFields) -> [(name: String, value: String)] {
        headers.map { (name: $0.name.canonicalName, value: $0.value) }
    }

    /// The header fields `response` was asked with, as they went out (``NetworkResponse/sentHeaders``):
    /// what an entry made from it is keyed by. `prepared` (the request as prepared before the send)
    /// for a transport that does not say.
    static func sentFields(
        _ response: NetworkResponse, else prepared: [(name: String, value: String)]
    ) -> [(name: String, value: String)] {
        response.sentHeaders.map(fields) ?? prepared
    }

    /// A hash of the values `request` has for each of `names` (repeated fields in order), so the
    /// store never keeps an `Authorization` value itself: 128 bits of two FNV-1a passes.
    static func varyHash(of request: [(name: String, value: String)], names: [String]) -> String {
        var first = FNV1a()
        var second = FNV1a(seed: 0x6c62_272e_07bb_0142)
        func mix(_ bytes: some Sequence<UInt8>) {
            first.mix(bytes)
            second.mix(bytes.lazy.map { $0 ^ 0x5a })
        }
        for name in names {
            mix(name.lowercased().utf8)
            mix([0])
            for field in request where field.name.lowercased() == name {
                mix(field.value.utf8)
                mix([1])
            }
            mix([2])
        }
        return String(first.value, radix: 16) + "-" + String(second.value, radix: 16)
    }

    /// A digest of `records` as stored (id, object and snapshot of each, in order), the same in
    /// every process: what a list entry keeps to tell that its records are still what it listed.
    static func digest(of records: [StoredRecord]) -> String {
        var hash = FNV1a()
        for record in records {
            hash.mix(record.id.utf8)
            hash.mix([0])
            for json in [record.object, record.snapshot ?? [:]] {
                hash.mix((try? JSONWriter.write(.object(json))) ?? Data())
                hash.mix([1])
            }
        }
        return String(hash.value, radix: 16)
    }
}
