import Foundation

/// What the store's HTTP cache holds for one record before its GET goes out.
struct CacheLookup: Sendable {
    /// The GET, as the repository sends it (without validators).
    var request: NetworkRequest
    /// The request's header fields as they go out (the transport's and its interceptors' too).
    var fields: [(name: String, value: String)]
    /// The entry's record id in ``HTTPCache/collection``.
    var key: String
    /// The URL the entry is kept for.
    var url: String
    /// The entry, when this request may use it (same URL, same varied headers) and the record it
    /// describes is stored and synced; nil otherwise.
    var entry: HTTPCacheEntry?
    /// The record the entry describes.
    var record: StoredRecord?
}

extension CacheLookup {
    /// The cache's URL of `request`: its method, path and query.
    static func url(of request: NetworkRequest) -> String {
        let query = request.query.map { item in
            let name = item.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? item.name
            guard let value = item.value else { return name }
            return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)
        }
        return request.method.rawValue + " " + request.path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}

extension CRUDNetworkingStorageRepository {
    /// What the store's HTTP cache holds for the record `id` (already followed to where it moved).
    func cacheLookup(id: String) async throws -> CacheLookup {
        let request = try remote.operationRequest(.read, id: id)
        let fields = HTTPCache.fields(try await store.prepared(request).headers)
        let key = HTTPCache.recordKey(collection: collection, id: id)
        let url = CacheLookup.url(of: request)
        let collection = self.collection
        var (entry, record): (HTTPCacheEntry?, StoredRecord?) = (nil, nil)
        do {
            (entry, record) = try await storage.transaction { tx in
                (try tx.httpCacheEntry(key), try tx.fetch(collection: collection, id: id))
            }
        } catch let error as DepotError where error.code == .storage {
            // A store that cannot be read does not keep the server's answer from the app: the
            // GET goes out unconditionally (storing its answer reports the store's failure).
        }
        let usable = entry.flatMap { entry in
            record?.syncState == .synced && entry.matches(url: url, request: fields) ? entry : nil
        }
        return CacheLookup(request: request, fields: fields, key: key, url: url, entry: usable, record: record)
    }

    /// `GET /path/:id` through the store's HTTP cache: with `If-None-Match` / `If-Modified-Since`
    /// when the store holds validators for the record; a `304` answers with the stored record
    /// (nothing written but the entry's renewed freshness); a `200` replaces the entry (or forgets
    /// it for `no-store`); a failure within the entry's `stale-if-error` window answers with the
    /// stored record.
    func conditionalRead(id: String) async throws -> RemoteAnswer<Entity> {
        let lookup = try await cacheLookup(id: id)
        var request = lookup.request
        if let entry = lookup.entry {
            request = try remote.operationRequest(.read, id: id, headers: entry.conditionalHeaders)
        }
        let clock = configuration.cacheClock
        let defaultMaxAge = configuration.defaultMaxAge
        let (remote, local) = (self.remote, self.local)
        let response: NetworkResponse
        do {
            response = try await store.exchange(request) { $0 }.value
        } catch let error as DepotError {
            if let entry = lookup.entry, let record = lookup.record, error.warrantsFallback(from: .remote),
                !error.isCancellation, entry.mayServeAfterError(at: clock.now, defaultMaxAge: defaultMaxAge)
            {
                return RemoteAnswer(entity: try local.decoded(record), caching: .staleAfterError(error))
            }
            throw error
        }
        let headers = CacheHeaders(fields: HTTPCache.fields(response.headers))
        let now = clock.now
        if response.status == 304 {
            guard let entry = lookup.entry, let record = lookup.record else {
                throw statusError(
                    for: response, request: DepotError.Request(method: request.method.rawValue, url: request.path))
            }
            let refreshed = entry.refreshed(by: headers, now: now)
            let renews = refreshed.freshness(defaultMaxAge: defaultMaxAge) > 0 && refreshed != entry
            return RemoteAnswer(
                entity: try local.decoded(record), etag: record.etag,
                caching: .notModified(refreshed: renews ? refreshed : nil, key: lookup.key))
        }
        var answer = remote.remembering(try remote.decodeAnswer(response, keepJSON: true))
        let keeps = { (entry: HTTPCacheEntry) in
            entry.etag != nil || entry.lastModified != nil || entry.freshness(defaultMaxAge: defaultMaxAge) > 0
        }
        if let entry = HTTPCacheEntry(headers: headers, url: lookup.url, now: now, request: lookup.fields),
            keeps(entry), answer.entity.id.pathComponent == id
        {
            answer.caching = .store(entry, key: lookup.key)
        } else {
            answer.caching = .forget(key: lookup.key)
        }
        return answer
    }

    /// The stored answer a read under `use` gives without waiting for the server, and whether it
    /// must be revalidated in the background; nil when the read must ask the server first.
    func cachedAnswer(id: String, use: CacheUse) async throws -> (Sourced<Entity>, revalidate: Bool)? {
        guard use != .revalidate else { return nil }
        let lookup = try await cacheLookup(id: id)
        guard let entry = lookup.entry, let record = lookup.record else { return nil }
        let now = configuration.cacheClock.now
        let defaultMaxAge = configuration.defaultMaxAge
        if entry.isFresh(at: now, defaultMaxAge: defaultMaxAge) {
            return (Sourced(value: try local.decoded(record), origin: .local), false)
        }
        let servesStale: Bool =
            switch use {
            case .revalidate: false
            case .cacheFirst: entry.mayServeWhileRevalidating(at: now, defaultMaxAge: defaultMaxAge)
            case .staleWhileRevalidate: !entry.noCache && !entry.mustRevalidate
            }
        guard servesStale else { return nil }
        return (Sourced(value: try local.decoded(record), origin: .local, isStale: true), true)
    }
}
