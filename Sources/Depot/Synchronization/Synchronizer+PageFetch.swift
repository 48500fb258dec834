import Foundation

extension Synchronizer {
    /// One page of a list as read, before it is merged.
    struct FetchedPage: Sendable {
        var request: NetworkRequest
        /// The answer; a `304` replayed from the cache entry reads as the `200` it confirmed.
        var response: NetworkResponse
        var elements: [JSON]
        /// The whole document, when paging or the cursor reads it; `.null` otherwise.
        var document: JSON
        var caching: PageCaching?
    }

    /// What asking for one page gave.
    enum PageFetch: Sendable {
        case page(FetchedPage)
        /// The answer says the list ended before this page (a 404 past the first page).
        case endOfList
        case failed(DepotError)
    }

    /// What comes after a page.
    enum NextPage: Sendable {
        /// The page was the last.
        case end
        case request(NetworkRequest)
        /// The list cannot be followed further (a bad link, a page already read): the walk fails
        /// with this once the page was merged.
        case failed(DepotError)
        /// The next request could not be made: the walk throws this once the page was merged.
        case thrown(any Error)
    }

    /// Sends `request` for page `pageNumber` (conditional on `lookup`'s entry) and reads its
    /// elements; throws only what cancels the walk.
    func fetchPage(_ request: NetworkRequest, lookup: PageLookup?, pageNumber: Int) async throws -> PageFetch {
        var response: NetworkResponse
        switch try await send(Self.conditional(request, lookup?.stored?.entry)) {
        case .failure(let error) where Self.endsList(error, pageNumber: pageNumber, configuration.pagination):
            return .endOfList
        case .failure(let error):
            return .failed(error)
        case .success(let answer):
            response = answer
        }
        let elements: [JSON]
        let document: JSON
        var caching: PageCaching?
        if response.status == 304, let lookup, let stored = lookup.stored {
            // The page is as stored: no body, nothing to decode or merge.
            var replayed: NetworkResponse
            (elements, replayed, document) = Self.replay(
                stored, notModified: response, identityKey: configuration.identityKey)
            // A pull always revalidates, so a page's freshness is never renewed: no write.
            caching = .notModified(ids: stored.ids, refreshed: nil, key: lookup.key)
            replayed.status = 200
            response = replayed
        } else {
            switch page(in: response, of: request) {
            case .failure(let error):
                return .failed(error)
            case .success(let answer):
                (elements, document) = answer
            }
            if let lookup {
                caching = pageCaching(response, lookup: lookup, elements: elements, document: document, now: Date())
            }
        }
        return .page(
            FetchedPage(request: request, response: response, elements: elements, document: document, caching: caching))
    }

    /// The request after `page` (number `pageNumber`, `read` elements so far) as
    /// ``SynchronizationConfiguration/pagination`` says; a link or cursor to a page in `visited`
    /// means the server goes round in circles.
    func nextPage(
        after page: FetchedPage, baseQuery: [URLQueryItem], pageNumber: Int, read: Int, visited: Set<String>
    ) -> NextPage {
        let (elements, response, document) = (page.elements, page.response, page.document)
        let next: NetworkRequest
        do {
            switch configuration.pagination {
            case .none:
                return .end
            case .pageQuery:
                // A short page is not the end: servers cap page sizes. The list ends on an empty
                // page, a 404 past the first page, or once a known total has been read.
                guard !elements.isEmpty else { return .end }
                if let total = Self.totalCount(response), read >= total { return .end }
                return .request(try firstRequest(baseQuery, pageNumber + 1))
            case .offset:
                guard !elements.isEmpty else { return .end }
                if let total = Self.totalCount(response) ?? Self.count(in: document), read >= total { return .end }
                return .request(try firstRequest(baseQuery, pageNumber + 1, offset: read))
            case .cursor(let parameter, let nextCursor):
                guard let cursor = Self.text(at: nextCursor, in: document), !cursor.isEmpty else { return .end }
                var query = baseQuery.filter { $0.name != parameter }
                query.append(URLQueryItem(name: parameter, value: cursor))
                next = try makeRequest(
                    listRoute.method, listRoute.resolvedPath(id: nil), query: query, headers: headers)
            case .startingAfter(let parameter, let hasMore, let key):
                guard Self.value(at: hasMore, in: document) == .bool(true), let row = elements.last else { return .end }
                guard let last = Self.idText(Self.value(at: key, in: row)) else {
                    return .failed(
                        DepotError(
                            .decoding, "the page says there is more, but its last row has no \(key) to start after",
                            request: summary(of: page.request), status: response.status))
                }
                var query = baseQuery.filter { $0.name != parameter }
                query.append(URLQueryItem(name: parameter, value: last))
                next = try makeRequest(
                    listRoute.method, listRoute.resolvedPath(id: nil), query: query, headers: headers)
            case .linkHeader, .nextLink, .automatic:
                let target: String? =
                    switch configuration.pagination {
                    case .nextLink(let pointer): Self.text(at: pointer, in: document)
                    case .automatic:
                        LinkHeader.next(in: response.headerValues("link"))
                            ?? ["next", "/links/next", "/_links/next/href", "/meta/next"].lazy.compactMap {
                                Self.text(at: $0, in: document)
                            }.first
                    default: LinkHeader.next(in: response.headerValues("link"))
                    }
                if case .automatic = configuration.pagination, target == nil || target?.isEmpty == true {
                    // No next link: the paging the answer echoes, when it says the list goes on.
                    switch nextByEchoedPaging(after: page, read: read) {
                    case .request(let request): next = request
                    case let other: return other
                    }
                    break
                }
                guard let target, !target.isEmpty else { return .end }
                do {
                    next = try LinkHeader.request(for: target, after: page.request, base: store.baseURL)
                } catch var error as DepotError {
                    error.status = response.status
                    return .failed(error)
                }
            }
        } catch {
            return .thrown(error)
        }
        // A link, cursor or id: a page already read means the server goes round in circles.
        guard !visited.contains(summary(of: next).url) else {
            return .failed(
                DepotError(
                    .decoding, "the next page \(summary(of: next).url) was already read",
                    request: summary(of: next), status: response.status))
        }
        return .request(next)
    }
}
