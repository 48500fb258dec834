import Depot
import DepotTesting
import Foundation

/// Reads: the list (pages, `Link` headers, deletions of incremental pulls, list `ETag`s) and one
/// object (`304` to its tag).
extension CheckServer {
    /// `GET /items`: the objects as `account` sees them, in pages when asked (or always, with
    /// ``CheckServerShape/linkPaging`` and ``CheckServerShape/silentPages``), deletions last in
    /// incremental pulls.
    func list(_ request: RecordedRequest, account: String, state: inout State) -> StubResponse {
        let query = request.query
        var all = state.order.compactMap { state.objects[$0] }
        var deleted: [(id: String, version: Int)] = []
        if query["updated_after"] == nil, query["_limit"] != nil { state.fullPullVersion = state.nextVersion }
        if shape.incremental, let after = query["updated_after"].flatMap(Int.init) {
            all = all.filter { $0.version >= after }
            deleted = state.tombstones.filter { $0.value >= after }.map { ($0.key, $0.value) }.sorted {
                $0.version < $1.version
            }
        }
        var page = all
        var next: String?
        if shape.linkPaging {
            // Every list in pages; the next page's link as the server writes it, form-encoded, and
            // one past the last page (an empty page, which names none).
            let asked = request.rawPath + (request.rawQuery.map { "?" + $0 } ?? "")
            if request.queryItems.contains(where: { $0.name == "_page" }),
                !(request.rawQuery ?? "").split(separator: "&").contains("scope=all+items")
            {
                state.mangledLinks.append(asked)
                return Self.error(400, "page link changed: \(asked)")
            }
            let number = max(query["_page"].flatMap(Int.init) ?? 1, 1)
            page = Array(all.dropFirst((number - 1) * shape.pageSize).prefix(shape.pageSize))
            let kept = request.queryItems.filter { !["_page", "_limit", "scope"].contains($0.name) }
                .map { "\($0.name)=\($0.value ?? "")" }
            if !page.isEmpty {
                next =
                    "/items?"
                    + (kept + ["_page=\(number + 1)", "_limit=\(shape.pageSize)", "scope=all+items"])
                    .joined(separator: "&")
            }
        } else if shape.silentPages {
            // PiccoloCRUD: the page `_page` names (else the first), of the server's size whatever
            // `_limit` asks, in `{"rows": […]}` with no next page and no total.
            let number = max(query["_page"].flatMap(Int.init) ?? 1, 1)
            page = Array(all.dropFirst((number - 1) * shape.pageSize).prefix(shape.pageSize))
            if !page.isEmpty { state.silentPagesFilled += 1 }
        } else if let limit = query["_limit"].flatMap(Int.init), limit > 0 {
            let number = max(query["_page"].flatMap(Int.init) ?? 1, 1)
            page = Array(all.dropFirst((number - 1) * limit).prefix(limit))
        }
        for object in page { state.shown[object.id] = max(state.shown[object.id] ?? 0, object.version) }
        var elements: [JSON] = page.map { .object(representation($0, account: account, full: !shape.summarizesLists)) }
        if page.count < (query["_limit"].flatMap(Int.init) ?? Int.max) || query["_limit"] == nil {
            // Deletions close the list, on its last page.
            elements += deleted.map {
                .object(["id": .string($0.id), "value": "", "deleted": true, "updated_at": .integer(Int64($0.version))])
            }
        }
        let body: JSON = shape.silentPages ? .object(["rows": .array(elements)]) : .array(elements)
        var headers = cachingHeaders()
        if !shape.silentPages { headers["X-Total-Count"] = "\(all.count + deleted.count)" }
        if let next { headers["Link"] = "<\(next)>; rel=\"next\"" }
        if shape.servesETags {
            let versions = page.map { "\($0.id).\($0.version)" }.joined(separator: ",")
            let tag =
                "\"list-\(FNV1a.hash((versions + request.rawPath + (shape.variesByCaller ? account : "")).utf8))\""
            if request.header("If-None-Match") == tag {
                return StubResponse(status: 304, headers: headers.merging(["ETag": tag]) { $1 })
            }
            headers["ETag"] = tag
        }
        return .json(body, headers: headers)
    }

    /// `GET /items/:id`: the object, or `304` when `If-None-Match` names its tag.
    func read(_ id: String, request: RecordedRequest, account: String, state: inout State) -> StubResponse {
        guard let object = state.objects[id] else { return Self.error(404, "no item \(id)") }
        if shape.servesETags, request.header("If-None-Match") == tag(object, account: account) {
            state.shown[id] = max(state.shown[id] ?? 0, object.version)
            var headers = cachingHeaders()
            headers["ETag"] = tag(object, account: account)
            return StubResponse(status: 304, headers: headers)
        }
        return single(object, status: 200, account: account, state: &state)
    }
}
