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
    ///
    /// A stored copy the model can no longer read is a cache miss, never an error: a `304` then
    /// answers from the stored server snapshot (and stores it re-read), else the read goes again
    /// as a plain `GET` (`conditional` false).
    func conditionalRead(id: String, conditional: Bool = true) async throws -> RemoteAnswer<Entity> {
        let lookup = try await cacheLookup(id: id)
        var request = lookup.request
        if conditional, let entry = lookup.entry {
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
                !error.isCancellation, entry.mayServeAfterError(at: clock.now, defaultMaxAge: defaultMaxAge),
                let stored = local.cachedEntity(record)
            {
                return RemoteAnswer(entity: stored.entity, caching: .staleAfterError(error))
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
            // Keyed by the request as it went out: a token refreshed on the way (a 401, then the
            // request sent again) keys the entry for the next read with that token.
            let refreshed = entry.refreshed(
                by: headers, now: now, sent: HTTPCache.sentFields(response, else: lookup.fields))
            let renews =
                (refreshed.freshness(defaultMaxAge: defaultMaxAge) > 0 && refreshed != entry)
                || refreshed.varyHash != entry.varyHash
            guard let stored = local.cachedEntity(record) else {
                // Neither the stored copy nor its snapshot reads: ask again, unconditionally.
                return try await conditionalRead(id: id, conditional: false)
            }
            guard !stored.fromSnapshot else {
                // The snapshot the 304 confirmed, re-read: stored in place of the unreadable copy.
                return RemoteAnswer(
                    entity: stored.entity, json: record.snapshot.map(JSON.object), etag: record.etag,
                    caching: .store(refreshed, key: lookup.key))
            }
            return RemoteAnswer(
                entity: stored.entity, etag: record.etag,
                caching: .notModified(refreshed: renews ? refreshed : nil, key: lookup.key))
        }
        var answer = remote.remembering(try remote.decodeAnswer(response, keepJSON: true))
        let keeps = { (entry: HTTPCacheEntry) in
            entry.etag != nil || entry.lastModified != nil || entry.freshness(defaultMaxAge: defaultMaxAge) > 0
        }
        if let entry = HTTPCacheEntry(
            headers: headers, url: lookup.url, now: now, request: HTTPCache.sentFields(response, else: lookup.fields),
            identifying: configuration.identifyingHeaders),
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
        guard let entry = lookup.entry, let record = lookup.record,
            let stale = entry.answersStale(
                under: use, at: configuration.cacheClock.now, defaultMaxAge: configuration.defaultMaxAge),
            // A stored copy the model cannot read is a miss: the read asks the server.
            let stored = local.cachedEntity(record), !stored.fromSnapshot
        else { return nil }
        return (Sourced(value: stored.entity, origin: .local, isStale: stale), stale)
    }
}

/// A list read's answers, and what they do to the store's HTTP cache.
struct ListAnswer<Entity: Sendable>: Sendable {
    /// The entities, from the server's body or (after a `304`) from the store.
    var answers: [RemoteAnswer<Entity>]
    /// The list's cache entry to write with its records (nil entry: forget it); nil for none.
    var page: (key: String, entry: HTTPCacheEntry?)?
    /// The rows of the server's body the app could not read: kept in the quarantine.
    var unreadable: [UnreadableRow] = []
}

extension CRUDNetworkingStorageRepository {
    /// The readable entities of a list answer (each with its JSON), and the rows the app cannot
    /// read, each with its `.decoding` error naming its position and `request`.
    ///
    /// - Throws: `DepotError` `.decoding` when the body is not a list at all.
    func readableAnswers(_ response: NetworkResponse, request: NetworkRequest) throws -> (
        [RemoteAnswer<Entity>], [UnreadableRow]
    ) {
        let configuration = configuration
        let json = try JSONMapping.unwrap(JSON(parsing: response.body), envelope: configuration.collectionEnvelope)
        guard let array = json.arrayValue else {
            throw DepotError(.decoding, "expected an array of \(Entity.self), found \(json.kindName)")
        }
        var (answers, unreadable): ([RemoteAnswer<Entity>], [UnreadableRow]) = ([], [])
        for (index, element) in BodyShape(configuration, entity: Entity.self).items(array).enumerated() {
            do {
                answers.append(
                    remote.remembering(
                        RemoteAnswer(
                            entity: try JSONMapping.entity(Entity.self, from: element, coding: configuration.coding),
                            json: element)))
            } catch {
                var failure = error as? DepotError ?? DepotError(.decoding, "\(error)", underlying: error)
                failure.message = "list element \(index): " + failure.message
                failure.request =
                    failure.request ?? DepotError.Request(method: request.method.rawValue, url: request.path)
                unreadable.append(
                    UnreadableRow(
                        collection: collection, id: MovedIDs.idText(element["id"]), raw: element, error: failure,
                        firstSeen: Date()))
            }
        }
        return (answers, unreadable)
    }
}

extension CRUDNetworkingStorageRepository {
    /// What the store's HTTP cache holds for the list `queryItems` asks for: the entry and every
    /// record it listed, in order, when this request may use it and each record is still stored
    /// and synced; nil otherwise.
    func listLookup(queryItems: [URLQueryItem]) async throws -> ListLookup {
        let request = try remote.operationRequest(.readAll, id: nil, query: queryItems)
        let fields = HTTPCache.fields(try await store.prepared(request).headers)
        let url = CacheLookup.url(of: request)
        let key = HTTPCache.pageKey(collection: collection, url: url)
        let collection = self.collection
        var stored: (entry: HTTPCacheEntry, records: [StoredRecord])?
        var generation = ""
        do {
            // A pending local write of the collection (which renews no list token: its answer
            // does) keeps every list entry from being used: the server's lists may hold it soon.
            let pending = try await !storage.fetch(
                collection: collection, syncStates: [.created, .updated, .deleted], after: nil, limit: 1
            ).isEmpty
            (generation, stored) = try await storage.transaction { tx -> (String, (HTTPCacheEntry, [StoredRecord])?) in
                let generation = try tx.listGeneration(collection: collection)
                // A write of the collection since the entry's request left makes it stale.
                guard !pending, let entry = try tx.httpCacheEntry(key), entry.ids != nil,
                    entry.matches(url: url, request: fields), (entry.generation ?? "") == generation,
                    // A record written since the entry was stored is not what the list described.
                    let records = try tx.listedRecords(entry, collection: collection),
                    records.allSatisfy({ $0.syncState == .synced })
                else { return (generation, nil) }
                return (generation, (entry, records))
            }
        } catch let error as DepotError where error.code == .storage {
            // A store that cannot be read does not keep the server's answer from the app.
        }
        return ListLookup(
            request: request, fields: fields, url: url, key: key, stored: stored, generation: generation)
    }

    /// `GET /path?…` through the store's HTTP cache: conditional when the store holds the list's
    /// validators and every record it listed, still synced; a `304` answers with those records in
    /// the listed order (no record written; the entry renewed when the `304` renews its
    /// freshness); a `200` replaces the list's entry.
    func conditionalReadAll(queryItems: [URLQueryItem], conditional: Bool = true) async throws -> ListAnswer<Entity> {
        let lookup = try await listLookup(queryItems: queryItems)
        let (stored, key) = (conditional ? lookup.stored : nil, lookup.key)
        let sent =
            try stored.map {
                try remote.operationRequest(.readAll, id: nil, query: queryItems, headers: $0.entry.conditionalHeaders)
            } ?? lookup.request
        let response = try await store.exchange(sent) { $0 }.value
        let headers = CacheHeaders(fields: HTTPCache.fields(response.headers))
        let now = configuration.cacheClock.now
        let defaultMaxAge = configuration.defaultMaxAge
        if response.status == 304 {
            guard let stored else {
                throw statusError(
                    for: response, request: DepotError.Request(method: sent.method.rawValue, url: sent.path))
            }
            let local = self.local
            let refreshed = stored.entry.refreshed(
                by: headers, now: now, sent: HTTPCache.sentFields(response, else: lookup.fields))
            let renews =
                (refreshed.freshness(defaultMaxAge: defaultMaxAge) > 0 && refreshed != stored.entry)
                || refreshed.varyHash != stored.entry.varyHash
            var answers: [RemoteAnswer<Entity>] = []
            for record in stored.records {
                // A stored copy the model cannot read is a miss: the list is asked for again.
                guard let entity = local.cachedEntity(record), !entity.fromSnapshot else {
                    return try await conditionalReadAll(queryItems: queryItems, conditional: false)
                }
                answers.append(
                    RemoteAnswer(
                        entity: entity.entity, etag: record.etag, caching: .notModified(refreshed: nil, key: key)))
            }
            return ListAnswer(answers: answers, page: renews ? (key, refreshed) : nil)
        }
        // A row the app cannot read is kept aside (quarantined with the answer), as a pull does.
        let (answers, unreadable) = try readableAnswers(response, request: sent)
        guard unreadable.isEmpty else { return ListAnswer(answers: answers, page: (key, nil), unreadable: unreadable) }
        // Kept when it can be revalidated or stays fresh for a while (cacheFirst needs no validator).
        guard
            var entry = HTTPCacheEntry(
                headers: headers, url: lookup.url, now: now,
                request: HTTPCache.sentFields(response, else: lookup.fields),
                identifying: configuration.identifyingHeaders),
            entry.etag != nil || entry.lastModified != nil || entry.freshness(defaultMaxAge: defaultMaxAge) > 0
        else { return ListAnswer(answers: answers, page: (key, nil)) }
        entry.ids = answers.map { $0.entity.id.pathComponent }
        entry.generation = lookup.generation
        return ListAnswer(answers: answers, page: (key, entry))
    }

    /// The stored list a `readAll` under `use` gives without waiting for the server, and whether
    /// it must be revalidated in the background; nil when the read must ask the server first (the
    /// same rules as ``cachedAnswer(id:use:)`` for one record).
    func cachedListAnswer(queryItems: [URLQueryItem], use: CacheUse) async throws
        -> (Sourced<[Entity]>, revalidate: Bool)?
    {
        guard use != .revalidate else { return nil }
        guard let stored = try await listLookup(queryItems: queryItems).stored,
            let stale = stored.entry.answersStale(
                under: use, at: configuration.cacheClock.now, defaultMaxAge: configuration.defaultMaxAge)
        else { return nil }
        let local = self.local
        var entities: [Entity] = []
        for record in stored.records {
            // A stored copy the model cannot read is a miss: the read asks the server.
            guard let entity = local.cachedEntity(record), !entity.fromSnapshot else { return nil }
            entities.append(entity.entity)
        }
        return (Sourced(value: entities, origin: .local, isStale: stale), stale)
    }
}

/// What the store's HTTP cache holds for one list GET before it goes out.
struct ListLookup: Sendable {
    /// The GET, as the repository sends it (without validators).
    var request: NetworkRequest
    /// The request's header fields as they go out.
    var fields: [(name: String, value: String)]
    /// The URL the entry is kept for.
    var url: String
    /// The entry's record id in ``HTTPCache/collection``.
    var key: String
    /// The entry and the records it listed, in order, when usable.
    var stored: (entry: HTTPCacheEntry, records: [StoredRecord])?
    /// The collection's list token when the lookup ran: the entry the answer makes carries it.
    var generation: String
}

extension LocalStore {
    /// The entity a stored record gives a cached answer: its object, else (a model that can no
    /// longer read the object) its stored server snapshot, `fromSnapshot`; nil when neither reads,
    /// which a cached read treats as a miss, never as an error.
    func cachedEntity(_ record: StoredRecord) -> (entity: Entity, fromSnapshot: Bool)? {
        if let entity = try? storedObject(record) { return (entity, false) }
        guard let snapshot = record.snapshot,
            let entity = try? JSONMapping.entity(Entity.self, from: .object(snapshot), coding: coding)
        else { return nil }
        return (entity, true)
    }
}
