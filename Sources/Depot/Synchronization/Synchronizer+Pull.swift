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

    /// Reads the server's list page by page, merging each page in one transaction while the next
    /// one is read, holding no more than two pages (plus, with `prune`, the set of ids seen).
    /// Prunes after a complete pull.
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
        // The next page is read while this one merges (one page ahead).
        var notes: [String] = []
        let complete = try await walk(
            &errors, extraQuery: extra, cachesPages: cachesPages, readsAhead: true, note: { notes.append($0) }
        ) {
            request, elements, response, document, caching in
            if case .notModified(let ids, let refreshed, let key)? = caching {
                // A 304: the stored records are current; only their ids count (for prune).
                if configuration.prune { seen.formUnion(ids) }
                if let refreshed {
                    try await storage.transaction { tx in
                        _ = try tx.writeRecord(.notModified(key: key, refreshed: refreshed))
                    }
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
        report.notes += notes
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
    /// handing each page's elements to `onPage`. Returns true when it read to the real end of the
    /// list; false after a failure, which is in `errors`, or a graceful stop.
    ///
    /// With `readsAhead`, the next page's request goes out as soon as a page is read, and its
    /// answer comes in while `onPage` merges that page: at most one page ahead, so at most two are
    /// held. The walk's contract stays the sequential one's: `onPage` gets pages in order, one at
    /// a time; a page read ahead is dropped, its request cancelled, when `onPage` throws, the task
    /// is cancelled or a graceful stop is asked for during the merge; a failure of the page read
    /// ahead is only seen after the page before it was merged, and nothing is asked after it.
    /// Without `readsAhead` (a ``PageSequence``, which waits for its loop), one page at a time.
    ///
    /// With `cachesPages`, each page's GET goes through the store's HTTP cache: conditional when
    /// the store holds the page's validators, a `304` replayed from the stored entry (its ids as
    /// elements holding only their id, nothing to merge), and `onPage` is told what the answer
    /// does to the cache.
    func walk(
        _ errors: inout [DepotError], extraQuery: [URLQueryItem] = [], cachesPages: Bool = false,
        readsAhead: Bool = false, note: (String) -> Void = { _ in },
        onPage: (NetworkRequest, [JSON], NetworkResponse, JSON, PageCaching?) async throws -> Void
    ) async throws -> Bool {
        let baseQuery = configuration.query.sortedQueryItems + extraQuery
        var pageNumber = 1
        let request = try firstRequest(baseQuery, pageNumber)
        var visited: Set<String> = [summary(of: request).url]
        var previousFirstID: String?
        var read = 0
        try checkCancellation()
        // A graceful stop: after the page in flight, merged; the list is not complete.
        if shouldStop() { return false }
        var fetched = try await fetchPage(
            request, lookup: cachesPages ? try await pageLookup(request) : nil, pageNumber: pageNumber)
        while true {
            let page: FetchedPage
            switch fetched {
            case .endOfList: return true
            case .failed(let error):
                errors.append(error)
                return false
            case .page(let answer): page = answer
            }
            let firstID = page.elements.first.flatMap { Self.idText($0[Pagination.serverKey]) }
            if pageNumber > 1, firstID != nil, firstID == previousFirstID {
                errors.append(
                    DepotError(
                        .decoding, "page \(pageNumber) repeats the previous page; the server ignores paging",
                        request: summary(of: page.request), status: page.response.status))
                return false
            }
            previousFirstID = firstID
            read += page.elements.count
            var next = nextPage(after: page, baseQuery: baseQuery, pageNumber: pageNumber, read: read, visited: visited)
            // An empty page is the end of the list, whatever link it still names: a server that
            // always sends one would otherwise be walked for ever.
            if case .request = next, page.elements.isEmpty {
                note("page \(pageNumber) was empty but named a next page: the list ends there")
                next = .end
            }
            guard case .request(let nextRequest) = next else {
                try await onPage(page.request, page.elements, page.response, page.document, page.caching)
                switch next {
                case .failed(let error):
                    errors.append(error)
                    return false
                case .thrown(let error): throw error
                case .end, .request: return true
                }
            }
            pageNumber += 1
            visited.insert(summary(of: nextRequest).url)
            if readsAhead, !shouldStop() {
                // The cache look-up before the merge: its transaction would wait for the merge's.
                let lookup = cachesPages ? try await pageLookup(nextRequest) : nil
                // Left unawaited when the merge throws or a stop returns: cancelled, its answer
                // dropped.
                let number = pageNumber
                async let ahead = fetchPage(nextRequest, lookup: lookup, pageNumber: number)
                try await onPage(page.request, page.elements, page.response, page.document, page.caching)
                try checkCancellation()
                if shouldStop() { return false }
                fetched = try await ahead
            } else {
                try await onPage(page.request, page.elements, page.response, page.document, page.caching)
                try checkCancellation()
                if shouldStop() { return false }
                let lookup = cachesPages ? try await pageLookup(nextRequest) : nil
                fetched = try await fetchPage(nextRequest, lookup: lookup, pageNumber: pageNumber)
            }
        }
    }

    /// Whether `error` (to the request for page `pageNumber`) is how a page-numbered list ends:
    /// a 404 past the first page (Django REST Framework's "Invalid page.").
    static func endsList(_ error: DepotError, pageNumber: Int, _ pagination: Pagination) -> Bool {
        guard case .pageQuery = pagination, pageNumber > 1 else { return false }
        return error.code == .notFound || error.status == 404
    }

    /// The list's length from `Content-Range` or `X-Total-Count`, when the answer gives a plain
    /// non-negative integer.
    static func totalCount(_ response: NetworkResponse) -> Int? {
        // `Content-Range: items 0-14/27` (PostgREST, PiccoloCRUD's `__range_header`): the length
        // after the slash, when the server gives it (`*` when it does not).
        if let range = response.header("content-range"), let slash = range.lastIndex(of: "/") {
            let length = range[range.index(after: slash)...].trimmingCharacters(in: .whitespaces)
            if !length.isEmpty, length.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                return Int(length) ?? Int.max
            }
        }
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
        for key in ["results", "data", "items", "objects", "rows"] {
            if let elements = document[key]?.arrayValue { return .success((shape.items(elements), document)) }
        }
        if let embedded = document["_embedded"]?.objectValue,
            let elements = embedded.keys.sorted().lazy.compactMap({ embedded[$0]?.arrayValue }).first
        {
            return .success((elements, document))
        }
        return .failure(
            DepotError(
                .decoding,
                "expected a JSON array, or an object holding one (results, data, items, objects, rows, _embedded)",
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
