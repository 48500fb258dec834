import Depot
import Foundation

extension StubResource {
    /// `GET /<name>`: the objects matching the query's exact-match filters. With `_page` and/or
    /// `_limit` (json-server style: pages from 1, limit 10 when only `_page` is given), that page
    /// of them, with `X-Total-Count` and a `Link` header (`first`, `prev`, `next`, `last`; no
    /// `next` on the last page). A `_page` or `_limit` that is not a positive integer answers 400.
    /// A page never holds more than ``maximumPageSize`` objects, whatever `_limit` asks (as most
    /// real servers cap it), and ``hidesTotalCount`` leaves `X-Total-Count` out. With
    /// `updated_after` on a resource that tracks changes, the list is the changed objects and
    /// tombstones instead, oldest change first, paged the same way.
    func list(_ request: RecordedRequest) -> StubResponse {
        var source = objects
        if tracksChanges, let after = request.query["updated_after"] {
            // Changes only: objects and tombstones stamped at or after `after` (inclusive).
            guard let since = Int64(after) else { return badRequest("updated_after must be an integer") }
            source = (objects + tombstones).compactMap { object -> (Int64, JSONObject)? in
                guard case .integer(let stamp)? = object["updated_at"], stamp >= since else { return nil }
                return (stamp, object)
            }.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let filters = request.queryItems.filter { !Self.isPagingItem($0) && $0.name != "updated_after" }
        let pageText = request.query["_page"]
        let limitText = request.query["_limit"]
        guard pageText != nil || limitText != nil else {
            return .json(.array(source.filter { Self.matches($0, filters) }.map(JSON.object)))
        }
        guard let page = Self.positive(pageText, default: 1), let asked = Self.positive(limitText, default: 10) else {
            return badRequest("_page and _limit must be positive integers")
        }
        let limit = maximumPageSize.map { min($0, asked) } ?? asked
        let matching = filters.isEmpty ? source : source.filter { Self.matches($0, filters) }
        let total = matching.count
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: limit)
        let start = overflow ? total : min(offset, total)
        let end = min(start + min(limit, total - start), total)
        let lastPage = max(1, total / limit + (total % limit == 0 ? 0 : 1))
        var links = [(rel: "first", page: 1)]
        if page > 1 { links.append(("prev", min(page - 1, lastPage))) }
        if page < lastPage { links.append(("next", page + 1)) }
        links.append(("last", lastPage))
        let base = request.header("host").map { "http://\($0)\(request.rawPath)" } ?? request.rawPath
        let link = links.map { rel, target in
            let query = Self.encodedQuery(
                request.queryItems.filter { !Self.isPagingItem($0) } + [
                    URLQueryItem(name: "_page", value: String(target)),
                    URLQueryItem(name: "_limit", value: String(limit)),
                ])
            return "<\(base)?\(query)>; rel=\"\(rel)\""
        }
        let response = StubResponse.json(.array(matching[start..<end].map(JSON.object)))
        let count = hidesTotalCount ? [] : [("X-Total-Count", String(total))]
        return Self.setting(count + [("Link", link.joined(separator: ", "))], on: response)
    }

    private static func isPagingItem(_ item: URLQueryItem) -> Bool {
        item.name == "_page" || item.name == "_limit"
    }

    private static func positive(_ text: String?, default value: Int) -> Int? {
        guard let text else { return value }
        guard let number = Int(text), number > 0 else { return nil }
        return number
    }

    private static let queryAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+;?#")
        return allowed
    }()

    /// `items` as a percent-encoded query, without the `?`.
    static func encodedQuery(_ items: [URLQueryItem]) -> String {
        items.map { item in
            let name = item.name.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? item.name
            guard let value = item.value else { return name }
            return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? value)
        }.joined(separator: "&")
    }
}
