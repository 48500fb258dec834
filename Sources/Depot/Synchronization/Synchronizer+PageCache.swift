import Foundation
import HTTPTypes

extension Synchronizer {
    /// What the store's HTTP cache holds for one list page before its GET goes out.
    struct PageLookup: Sendable {
        /// The entry's record id in ``HTTPCache/collection``.
        var key: String
        /// The URL the entry is kept for.
        var url: String
        /// The request's header fields as they go out.
        var fields: [(name: String, value: String)]
        /// The page as stored, when this request may use it and every record it lists is stored.
        var stored: StoredPage?
        /// The collection's list token when the lookup ran: the entry the answer makes carries it.
        var generation = ""
    }

    /// A page's cache entry that a page read stored, with the facts a `304` replays: the ids it
    /// listed, in order, and its document without items (a list read's entry records neither).
    struct StoredPage: Sendable {
        /// The entry, whose validators the GET sends.
        var entry: HTTPCacheEntry
        /// The ids the page listed, in order.
        var ids: [String]
        /// The page's document without its items: the paging facts a `304` replays.
        var paging: JSON
    }

    /// What a page's answer does to the store's HTTP cache.
    enum PageCaching: Sendable {
        /// A `200`: the page's entry becomes this one, written with the page's records.
        case store(HTTPCacheEntry, key: String)
        /// A `200` the cache does not keep: the page's entry is forgotten.
        case forget(key: String)
        /// A `304`: the page is as stored, its ids listed; nothing is merged. `refreshed` replaces
        /// the entry when the `304` renewed its freshness.
        case notModified(ids: [String], refreshed: HTTPCacheEntry?, key: String)
    }

    /// The cache entry `request` (a list page) may send validators from: one for the same URL and
    /// varied headers whose listed records are all still stored.
    func pageLookup(_ request: NetworkRequest) async throws -> PageLookup {
        let url = CacheLookup.url(of: request)
        let key = HTTPCache.pageKey(collection: collection, url: url)
        let fields = HTTPCache.fields(try await store.prepared(request).headers)
        let collection = self.collection
        let (generation, stored) = try await storage.transaction { tx -> (String, StoredPage?) in
            let generation = try tx.listGeneration(collection: collection)
            // A write of the collection since the entry's request left makes it stale.
            // Only an entry a page read stored holds the page's paging facts (`paging`): a 304
            // replays them, and a list read's entry (`readAll`) recorded none, so an empty
            // document would read as a bare array, the whole list (issue 46, seed
            // 15468018659569986649). Such an entry is not this pull's to revalidate.
            guard let entry = try tx.httpCacheEntry(key), let ids = entry.ids, let paging = entry.paging,
                entry.matches(url: url, request: fields), (entry.generation ?? "") == generation
            else { return (generation, nil) }
            // A record the store lost since (erased, pruned, removed), or one any road wrote since
            // (a detail read's copy, another account's, a pending edit), makes the page worth
            // reading: a 304 confirms only what the page's validator described.
            // A listed record with a pending local change is merged again, so the change is seen.
            let records = try tx.listedRecords(entry, collection: collection)
            guard records?.allSatisfy({ $0.syncState == .synced }) == true else { return (generation, nil) }
            return (generation, StoredPage(entry: entry, ids: ids, paging: paging))
        }
        return PageLookup(key: key, url: url, fields: fields, stored: stored, generation: generation)
    }

    /// `request` with the validators of `entry` (`If-None-Match`, else `If-Modified-Since`).
    static func conditional(_ request: NetworkRequest, _ entry: HTTPCacheEntry?) -> NetworkRequest {
        guard let entry else { return request }
        var request = request
        if let etag = entry.etag {
            request.headers[.ifNoneMatch] = etag
        } else if let lastModified = entry.lastModified {
            request.headers[.ifModifiedSince] = lastModified
        }
        return request
    }

    /// The page a `304` confirmed, replayed from its entry: its ids as elements holding only
    /// their id, its document without items, and an answer with its stored paging headers.
    static func replay(_ stored: StoredPage, notModified: NetworkResponse, identityKey: String) -> (
        [JSON], NetworkResponse, JSON
    ) {
        let elements = stored.ids.map { id in
            var object: JSONObject = ["id": .string(id)]
            object[identityKey] = .string(id)
            return JSON.object(object)
        }
        var headers = notModified.headers
        for (name, values) in stored.entry.pagingHeaders.sorted(by: { $0.key < $1.key }) {
            guard let field = HTTPField.Name(name) else { continue }
            headers[values: field] = values
        }
        return (elements, NetworkResponse(status: 304, headers: headers), stored.paging)
    }

    /// What a page's `200` does to the cache: its entry (validators, freshness, ids in order,
    /// paging facts), or forget for `no-store`, an answer with nothing to validate, or a page
    /// with an element without an id.
    func pageCaching(
        _ response: NetworkResponse, lookup: PageLookup, elements: [JSON], document: JSON, now: Date
    ) -> PageCaching {
        let headers = CacheHeaders(fields: HTTPCache.fields(response.headers))
        var ids: [String] = []
        ids.reserveCapacity(elements.count)
        for element in elements {
            guard let id = Self.idText(element[configuration.identityKey]) ?? Self.idText(element["id"]) else {
                return .forget(key: lookup.key)
            }
            ids.append(id)
        }
        guard
            var entry = HTTPCacheEntry(
                headers: headers, url: lookup.url, now: now,
                request: HTTPCache.sentFields(response, else: lookup.fields),
                identifying: identifyingHeaders),
            entry.etag != nil || entry.lastModified != nil
        else { return .forget(key: lookup.key) }
        entry.ids = ids
        entry.generation = lookup.generation
        entry.paging = Self.withoutItems(document, elements)
        for name in ["link", "x-total-count"] {
            let values = response.headerValues(name)
            if !values.isEmpty { entry.pagingHeaders[name] = values }
        }
        return .store(entry, key: lookup.key)
    }

    /// `document` without the array of `elements` it holds (at the top, or in `_embedded`), so the
    /// stored entry keeps only what paging reads; an empty array for a document that is only the
    /// array (a page replayed from it reads as one: the whole list, by the answer's own shape).
    static func withoutItems(_ document: JSON, _ elements: [JSON]) -> JSON {
        guard case .object(var object) = document else { return .array([]) }
        let items = JSON.array(elements)
        for (key, value) in object where value == items { object[key] = .array([]) }
        if case .object(var embedded)? = object["_embedded"] {
            for (key, value) in embedded where value == items { embedded[key] = .array([]) }
            object["_embedded"] = .object(embedded)
        }
        return .object(object)
    }
}
