import Foundation

extension Synchronizer {
    /// Whether the collection has rows in the quarantine (kept before this pull, or put there
    /// by it): only then does a merged row look for a kept version of itself to let go.
    struct QuarantineUse: Sendable {
        var inUse: Bool
    }

    /// What merging one page did.
    struct PageOutcome: Sendable {
        var pulled = 0
        var conflicts = 0
        var removed = 0
        /// The positions in the page of the elements not merged: unreadable, or kept out by the
        /// record-write rule (a pending local change, a write's answer newer than the page). The
        /// cursor and the page's validator do not move past them.
        var unreadable: [Int] = []
    }

    /// Reads the server's list page by page, merging each page in one transaction and holding no
    /// more than one page (plus, with `prune`, the set of ids seen). Prunes after a complete pull.
    func pull(_ report: inout SynchronizationReport, progress: Progress?) async throws {
        let incremental = configuration.incremental
        let cursorID = PullCursors.id(collection: collection, query: configuration.query.sortedQueryItems)
        var since: String?
        if incremental != nil {
            let stored = try await storage.fetch(collection: PullCursors.collection, id: cursorID)
            since = stored?.object["cursor"].flatMap(PullCursors.text)
        }
        report.incremental = since != nil
        var extra: [URLQueryItem] = []
        if let incremental, let since { extra = [URLQueryItem(name: incremental.parameter, value: since)] }
        var seen: Set<String> = []
        var errors: [DepotError] = []
        var advance = PullCursorAdvance(incremental?.cursor, timeZone: incremental?.timeZone)
        // An answer to a write stored after this pull's first request is newer than its pages.
        let reader = try await DeliveryLog.beginRead(storage)
        // Rows an earlier pull could not read go first: those the app reads now are merged (this
        // pull's pages, newer, come after them).
        let kept = try await Quarantine.rows(of: collection, in: storage)
        var quarantine = QuarantineUse(inUse: !kept.isEmpty)
        if !kept.isEmpty {
            var unseen: Set<String> = []
            let request = try firstRequest(configuration.query.sortedQueryItems, 1)
            let outcome = try await merge(
                page: kept.map(\.raw), request: request, seen: &unseen, report: &report, reader: reader,
                quarantine: &quarantine, fromQuarantine: true)
            report.recovered += outcome.pulled + outcome.conflicts
        }
        // Pages of a full pull go through the store's HTTP cache; an incremental pull's ask for
        // changes since a cursor that moves, so they do not.
        let cachesPages = incremental == nil
        let complete = try await walk(&errors, extraQuery: extra, cachesPages: cachesPages) {
            request, elements, response, document, caching in
            if case .notModified(let ids, let refreshed, let key)? = caching {
                // A 304: the stored records are current; only their ids count (for prune).
                if configuration.prune { seen.formUnion(ids) }
                if let refreshed {
                    try await storage.transaction { tx in try tx.storeHTTPCacheEntry(refreshed, key: key) }
                }
                report.notModified += 1
                report.pages += 1
                progress?(report)
                return
            }
            let outcome = try await merge(
                page: elements, request: request, seen: &seen, report: &report, reader: reader,
                quarantine: &quarantine, caching: caching)
            report.pulled += outcome.pulled
            report.conflicts += outcome.conflicts
            report.removed += outcome.removed
            report.pages += 1
            advance.take(elements, unreadable: outcome.unreadable, response: response) {
                Self.value(at: $0, in: document)
            }
            progress?(report)
        }
        report.errors += errors
        guard complete else { return }
        report.pullCompleted = true
        if let cursor = advance.final(since: since) {
            // Only now, after the last page: a pull that stops early keeps the old cursor, and
            // the cursor moves only past rows that were merged.
            try await storage.upsert(
                StoredRecord(
                    collection: PullCursors.collection, id: cursorID, object: ["cursor": cursor], syncState: .synced)
            )
        }
        // An incremental pull sees only changes: only a full one may prune.
        if configuration.prune, since == nil {
            try await prune(keeping: seen, &report, reader: reader)
            progress?(report)
        }
    }

    /// Reads the server's list page by page as ``SynchronizationConfiguration/pagination`` says,
    /// handing each page's elements to `onPage` (one page held at a time). Returns true when it
    /// read to the real end of the list; false after a failure, which is in `errors`.
    ///
    /// With `cachesPages`, each page's GET goes through the store's HTTP cache: conditional when
    /// the store holds the page's validators, a `304` replayed from the stored entry (its ids as
    /// elements holding only their id, nothing to merge), and `onPage` is told what the answer
    /// does to the cache.
    func walk(
        _ errors: inout [DepotError], extraQuery: [URLQueryItem] = [], cachesPages: Bool = false,
        onPage: (NetworkRequest, [JSON], NetworkResponse, JSON, PageCaching?) async throws -> Void
    ) async throws -> Bool {
        let baseQuery = configuration.query.sortedQueryItems + extraQuery
        var pageNumber = 1
        var request = try firstRequest(baseQuery, pageNumber)
        var visited: Set<String> = []
        var previousFirstID: String?
        var read = 0
        pages: while true {
            try checkCancellation()
            // A graceful stop: after the page in flight, merged; the list is not complete.
            if shouldStop() { return false }
            visited.insert(summary(of: request).url)
            var response: NetworkResponse
            var elements: [JSON]
            var document: JSON
            let lookup = cachesPages ? try await pageLookup(request) : nil
            switch try await send(Self.conditional(request, lookup?.entry)) {
            case .failure(let error) where Self.endsList(error, pageNumber: pageNumber, configuration.pagination):
                break pages
            case .failure(let error):
                errors.append(error)
                return false
            case .success(let answer):
                response = answer
            }
            var caching: PageCaching?
            if response.status == 304, let lookup, let entry = lookup.entry {
                // The page is as stored: no body, nothing to decode or merge.
                var replayed: NetworkResponse
                (elements, replayed, document) = Self.replay(
                    entry, notModified: response, identityKey: configuration.identityKey)
                // A pull always revalidates, so a page's freshness is never renewed: no write.
                caching = .notModified(ids: entry.ids ?? [], refreshed: nil, key: lookup.key)
                replayed.status = 200
                response = replayed
            } else {
                switch page(in: response, of: request) {
                case .failure(let error):
                    errors.append(error)
                    return false
                case .success(let answer):
                    (elements, document) = answer
                }
                if let lookup {
                    caching = pageCaching(
                        response, lookup: lookup, elements: elements, document: document, now: Date())
                }
            }
            let firstID = elements.first.flatMap { Self.idText($0["id"]) }
            if pageNumber > 1, firstID != nil, firstID == previousFirstID {
                errors.append(
                    DepotError(
                        .decoding, "page \(pageNumber) repeats the previous page; the server ignores paging",
                        request: summary(of: request), status: response.status))
                return false
            }
            previousFirstID = firstID
            try await onPage(request, elements, response, document, caching)
            read += elements.count

            switch configuration.pagination {
            case .none:
                break
            case .pageQuery:
                // A short page is not the end: servers cap page sizes. The list ends on an empty
                // page, a 404 past the first page, or once a known total has been read.
                guard !elements.isEmpty else { break }
                if let total = Self.totalCount(response), read >= total { break }
                pageNumber += 1
                request = try firstRequest(baseQuery, pageNumber)
                continue
            case .offset:
                guard !elements.isEmpty else { break }
                if let total = Self.totalCount(response) ?? Self.count(in: document), read >= total { break }
                pageNumber += 1
                request = try firstRequest(baseQuery, pageNumber, offset: read)
                continue
            case .cursor(let parameter, let next):
                guard let cursor = Self.text(at: next, in: document), !cursor.isEmpty else { break pages }
                var query = baseQuery.filter { $0.name != parameter }
                query.append(URLQueryItem(name: parameter, value: cursor))
                request = try makeRequest(
                    listRoute.method, listRoute.resolvedPath(id: nil), query: query, headers: headers)
            case .startingAfter(let parameter, let hasMore):
                guard Self.value(at: hasMore, in: document) == .bool(true),
                    let last = elements.last.flatMap({ Self.idText($0[configuration.identityKey]) })
                else { break pages }
                var query = baseQuery.filter { $0.name != parameter }
                query.append(URLQueryItem(name: parameter, value: last))
                request = try makeRequest(
                    listRoute.method, listRoute.resolvedPath(id: nil), query: query, headers: headers)
            case .linkHeader, .nextLink, .automatic:
                let target: String? =
                    switch configuration.pagination {
                    case .nextLink(let pointer): Self.text(at: pointer, in: document)
                    case .automatic:
                        LinkHeader.next(in: response.headerValues("link"))
                            ?? ["next", "/links/next", "/_links/next/href"].lazy.compactMap {
                                Self.text(at: $0, in: document)
                            }.first
                    default: LinkHeader.next(in: response.headerValues("link"))
                    }
                guard let target, !target.isEmpty else { break pages }
                do {
                    request = try LinkHeader.request(
                        for: target, after: request, base: store.baseURL)
                } catch var error as DepotError {
                    error.status = response.status
                    errors.append(error)
                    return false
                }
            }
            if case .none = configuration.pagination { break }
            if case .pageQuery = configuration.pagination { break }
            if case .offset = configuration.pagination { break }
            // A link, cursor or id: a page already read means the server goes round in circles.
            pageNumber += 1
            guard !visited.contains(summary(of: request).url) else {
                errors.append(
                    DepotError(
                        .decoding, "the next page \(summary(of: request).url) was already read",
                        request: summary(of: request), status: response.status))
                return false
            }
            continue
        }
        return true
    }

    /// Whether `error` (to the request for page `pageNumber`) is how a page-numbered list ends:
    /// a 404 past the first page (Django REST Framework's "Invalid page.").
    static func endsList(_ error: DepotError, pageNumber: Int, _ pagination: Pagination) -> Bool {
        guard case .pageQuery = pagination, pageNumber > 1 else { return false }
        return error.code == .notFound || error.status == 404
    }

    /// The list's length from `X-Total-Count`, when the answer gives a plain non-negative integer.
    static func totalCount(_ response: NetworkResponse) -> Int? {
        guard let text = response.header("x-total-count")?.trimmingCharacters(in: .whitespaces),
            !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text) ?? Int.max
    }

    func firstRequest(_ baseQuery: [URLQueryItem], _ pageNumber: Int, offset: Int = 0) throws -> NetworkRequest {
        var query = baseQuery
        switch configuration.pagination {
        case .pageQuery(let page, let limit, let size):
            query.removeAll { $0.name == page || $0.name == limit }
            query += [
                URLQueryItem(name: page, value: String(pageNumber)), URLQueryItem(name: limit, value: String(size)),
            ]
        case .offset(let offsetName, let limit, let size):
            query.removeAll { $0.name == offsetName || $0.name == limit }
            query += [
                URLQueryItem(name: offsetName, value: String(offset)), URLQueryItem(name: limit, value: String(size)),
            ]
        default:
            break
        }
        return try makeRequest(
            listRoute.method, listRoute.resolvedPath(id: nil), template: listRoute.path, query: query, headers: headers)
    }

    /// One page's items and its whole document: the items from the collection envelope, or, with
    /// ``Pagination/automatic`` and no envelope configured, from a bare array or the first of
    /// `results`, `data`, `items` or HAL's `_embedded` that holds an array.
    func page(in response: NetworkResponse, of request: NetworkRequest) -> Result<([JSON], JSON), DepotError> {
        var readsBody = false
        if case .body? = configuration.incremental?.cursor { readsBody = true }
        switch configuration.pagination {
        case .none where !readsBody, .pageQuery where !readsBody, .linkHeader where !readsBody:
            // Nothing to read beside the items: the document is not kept.
            return array(in: response, of: request).map { ($0, .null) }
        case .automatic where envelope == nil:
            break
        case .none, .pageQuery, .linkHeader, .nextLink, .cursor, .startingAfter, .offset, .automatic:
            let document: JSON
            do {
                document = try JSON(parsing: response.body)
            } catch {
                return array(in: response, of: request).map { ($0, .null) }
            }
            return array(in: response, of: request, parsed: document).map { ($0, document) }
        }
        let document: JSON
        do {
            document = try JSON(parsing: response.body)
        } catch {
            return array(in: response, of: request).map { ($0, .null) }
        }
        if let elements = document.arrayValue { return .success((shape.items(elements), document)) }
        for key in ["results", "data", "items"] {
            if let elements = document[key]?.arrayValue { return .success((shape.items(elements), document)) }
        }
        if let embedded = document["_embedded"]?.objectValue,
            let elements = embedded.keys.sorted().lazy.compactMap({ embedded[$0]?.arrayValue }).first
        {
            return .success((elements, document))
        }
        return .failure(
            DepotError(
                .decoding, "expected a JSON array, or an object holding one (results, data, items, _embedded)",
                request: summary(of: request), status: response.status,
                responseBody: response.body.isEmpty ? nil : response.body))
    }

    /// The value at `location` in `document`: a JSON pointer (`/links/next`, RFC 6901) or a
    /// top-level key.
    static func value(at location: String, in document: JSON) -> JSON? {
        guard location.hasPrefix("/") else { return document[location] }
        var current: JSON? = document
        for token in location.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch current {
            case .object(let object)?: current = object[key]
            case .array(let array)?: current = Int(key).flatMap { array.indices.contains($0) ? array[$0] : nil }
            default: return nil
            }
        }
        return current
    }

    /// The text (or integer, as text) at `location`; nil when missing or null.
    static func text(at location: String, in document: JSON) -> String? {
        switch value(at: location, in: document) {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        default: nil
        }
    }

    /// The list's length the body gives as `count` (Django REST Framework), when a non-negative
    /// integer.
    static func count(in document: JSON) -> Int? {
        guard case .integer(let count)? = document["count"], count >= 0 else { return nil }
        return Int(exactly: count)
    }
}
