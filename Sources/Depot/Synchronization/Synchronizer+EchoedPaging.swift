import Foundation

extension Synchronizer {
    /// The page after `page` under ``Pagination/automatic`` when the answer names no next link:
    /// the end when the answer gives no total or the total is read; else the next page by the
    /// paging the answer echoes (`offset` and `limit`, or `page`, at the top level or in `meta`);
    /// else a failure ``DepotError/Code/listNotPaged``, so `readAll(pages: .all)` never returns a
    /// first page as the whole list.
    func nextByEchoedPaging(after page: FetchedPage, read: Int) -> NextPage {
        guard !page.elements.isEmpty,
            let total = Self.totalCount(page.response) ?? Self.total(in: page.document), read < total
        else { return .end }
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
