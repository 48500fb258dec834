import Foundation

extension Synchronizer {
    /// The page after `page` under ``Pagination/automatic`` when the answer names no next link:
    /// the end when the page is empty, the total is read, or the answer says it is the whole
    /// list (``saysListEnds(_:)``); else the next page by the paging the answer echoes (`offset`
    /// and `limit`, or `page`, at the top level or in `meta`); else a failure
    /// ``DepotError/Code/listNotPaged``, so `readAll(pages: .all)` never returns a first page as the
    /// whole list.
    func nextByEchoedPaging(after page: FetchedPage, read: Int) -> NextPage {
        guard !page.elements.isEmpty else { return .end }
        guard let total = Self.totalCount(page.response) ?? Self.total(in: page.document) else {
            if Self.saysListEnds(page) { return .end }
            return .failed(
                DepotError(
                    .listNotPaged,
                    "the answer gave \(read) entities in an envelope with no next link, no total and no paging:"
                        + " it may be the first page only; set the pagination (.none if the server answers the"
                        + " whole list)",
                    request: summary(of: page.request), status: page.response.status))
        }
        guard read < total else { return .end }
        let echoes = [page.document.objectValue, page.document["meta"]?.objectValue].compactMap { $0 }
        var next = page.request
        if let paging = echoes.first(where: {
            Self.nonNegative($0["offset"]) != nil && Self.nonNegative($0["limit"]) != nil
        }) {
            next.query.removeAll { $0.name == "offset" || $0.name == "limit" }
            next.query += [
                URLQueryItem(name: "offset", value: String(read)),
                URLQueryItem(name: "limit", value: String(Self.nonNegative(paging["limit"]) ?? 0)),
            ]
            return .request(next)
        }
        if let paging = echoes.first(where: { Self.nonNegative($0["page"]) != nil }),
            let number = Self.nonNegative(paging["page"]), number < Int.max
        {
            next.query.removeAll { $0.name == "page" }
            next.query.append(URLQueryItem(name: "page", value: String(number + 1)))
            return .request(next)
        }
        return .failed(
            DepotError(
                .listNotPaged,
                "the list holds \(total) entities, the answer gave \(read) and no way to the next page"
                    + " (no next link, no offset and limit or page in the answer): set the pagination",
                request: summary(of: page.request), status: page.response.status))
    }

    /// Whether an answer with no next link and no total says it holds the whole list: a bare
    /// array (the answer of a server that does not page), or a body or `Link` header with a place
    /// for the next page left empty (`"next": null`, a `links`, `_links` or `meta` object without
    /// a next, a `Link` header without `rel="next"`). An envelope with none of these (a CRUD
    /// router's `{"rows": […]}` cut at its page size) says nothing either way.
    static func saysListEnds(_ page: FetchedPage) -> Bool {
        if !page.response.headerValues("link").isEmpty { return true }
        guard let object = page.document.objectValue else { return true }
        if object["next"] != nil { return true }
        return ["links", "_links", "meta"].contains { object[$0]?.objectValue != nil }
    }

    /// The list's length the body gives: `count`, `total`, `total_count`, or the same in `meta`
    /// (django-tastypie's `meta.total_count`), when a non-negative integer.
    static func total(in document: JSON) -> Int? {
        for place in [document.objectValue, document["meta"]?.objectValue].compactMap({ $0 }) {
            for key in ["count", "total", "total_count"] {
                if let total = nonNegative(place[key]) { return total }
            }
        }
        return nil
    }

    /// A non-negative integer that fits in `Int`; nil otherwise.
    static func nonNegative(_ json: JSON?) -> Int? {
        guard case .integer(let value)? = json, value >= 0 else { return nil }
        return Int(exactly: value)
    }
}
