import Foundation

/// How ``SynchronizableRepository/synchronize(progress:)`` reads the server's list page by page.
///
/// ```swift
/// .pageQuery(page: "_page", limit: "_limit", size: 500)   // GET /messages?_page=1&_limit=500, …
/// ```
public enum Pagination: Sendable, Hashable {
    /// One `GET /path`: the server answers the whole list at once.
    case none
    /// `GET /path`, then each `Link: <…>; rel="next"` target (RFC 8288) until an answer has none.
    /// A target on another origin than the session's base URL is refused with `DepotError`
    /// `.invalidRequest`.
    case linkHeader
    /// `GET /path?<page>=1&<limit>=<size>`, then page 2, 3… until the real end of the list: an
    /// empty page, a 404 past the first page (Django REST Framework), or as many entities read as
    /// `X-Total-Count` says. A page shorter than `size` is not the end (servers cap page sizes),
    /// so without `X-Total-Count` the pull reads one empty page more.
    case pageQuery(page: String, limit: String, size: Int)
    /// `GET /path`, then the next page's URL the body names, until it is null or missing:
    /// `.nextLink("next")` for Django REST Framework, a JSON pointer such as `"/links/next"` for
    /// JSON:API or `"/_links/next/href"` for HAL. The items are read from the collection envelope
    /// (``RepositoryConfiguration/collectionEnvelope``, e.g. `"results"`). Same-origin targets only.
    case nextLink(String)
    /// An opaque cursor: `GET /path`, then `?<parameter>=<cursor>` with the cursor the body holds at
    /// `next` (a key or a JSON pointer), until it is null, empty or missing.
    case cursor(parameter: String, next: String)
    /// Stripe's style: `GET /path`, then `?<parameter>=<last id read>` while the body's `hasMore`
    /// (a key or a JSON pointer) is `true`. The last id is read from the last row's `key` (the
    /// server's own id, `"id"` by default; never ``SynchronizationConfiguration/identityKey``,
    /// which names the client's id in a batch reply). A page that says there is more but whose last
    /// row has no such key ends the pull as failed (not complete: nothing is pruned).
    case startingAfter(parameter: String, hasMore: String, key: String = "id")
    /// `GET /path?<offset>=0&<limit>=<size>`, then the offset of the next entity not yet read
    /// (Django REST Framework's `LimitOffsetPagination`, FastAPI apps), until an empty page or a
    /// known total (`X-Total-Count`, or `count` in the body) has been read; never on a short page.
    case offset(offset: String, limit: String, size: Int)
    /// Recognises what the server does, page by page: a `Link` header's next page, a next link in
    /// the body (`next`, `/links/next`, `/_links/next/href`), and the items in a bare array or an
    /// envelope (the configured one, else `results`, `data`, `items` or HAL's `_embedded`).
    /// Without a next link, a total above what was read goes on by the paging the answer echoes;
    /// the list ends with the page read only when the answer says it is the whole list (a bare
    /// array, `"next": null`, a `links`/`_links`/`meta` object without a next, a `Link` header
    /// without one, or a total read). Anything else fails with `DepotError.Code.listNotPaged`.
    case automatic

    /// ``automatic``: for `readAll(query:pages: .all)`.
    public static var all: Pagination { .automatic }
}

/// A transport that knows the base URL its request paths are relative to.
///
/// Superseded by ``Networking/baseURL``, which every transport has (nil by default) and which
/// wrappers forward: a pull resolves a server's absolute next-page URL against it. A type that
/// conforms gets its `baseURL` from ``url``.
@available(*, deprecated, message: "implement Networking.baseURL instead")
public protocol BaseURLNetworking: Networking {
    /// The base URL request paths are relative to.
    var url: URL { get }
}

@available(*, deprecated, message: "implement Networking.baseURL instead")
extension BaseURLNetworking {
    /// ``url``, for ``Networking/baseURL``.
    public var baseURL: URL? { url }
}

/// RFC 8288 `Link` header values: `<uri>; rel="next"; title="…", <uri2>; rel=prev`.
enum LinkHeader {
    /// One link: its target as written and its parameters (names lowercased).
    struct Link: Equatable {
        var target: String
        var parameters: [String: String]

        /// The relation types (`rel` is a space-separated list, compared without case).
        var relations: [String] {
            (parameters["rel"] ?? "").lowercased().split(separator: " ").map(String.init)
        }
    }

    /// The target of the first link with relation `next` in `values` (each a field value).
    static func next(in values: [String]) -> String? {
        values.lazy.flatMap(links(in:)).first { $0.relations.contains("next") }?.target
    }

    /// Every link in one field value; what cannot be parsed ends the list (never traps).
    static func links(in value: String) -> [Link] {
        var links: [Link] = []
        var rest = Substring(value)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard rest.first == "<", let close = rest.firstIndex(of: ">") else { return links }
            var link = Link(target: String(rest[rest.index(after: rest.startIndex)..<close]), parameters: [:])
            rest = rest[rest.index(after: close)...]
            while true {
                rest = rest.drop { $0 == " " || $0 == "\t" }
                guard rest.first == ";" else { break }
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                let name = rest.prefix { $0 != "=" && $0 != ";" && $0 != "," && $0 != " " }
                rest = rest[name.endIndex...].drop { $0 == " " || $0 == "\t" }
                var parameterValue = ""
                if rest.first == "=" {
                    rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                    (parameterValue, rest) = readValue(rest)
                }
                let key = name.lowercased()
                if !key.isEmpty, link.parameters[key] == nil { link.parameters[key] = parameterValue }
            }
            links.append(link)
            guard rest.first == "," else { return links }
        }
    }

    /// A token or a quoted string (with `\` escapes), and what follows it.
    private static func readValue(_ text: Substring) -> (String, Substring) {
        guard text.first == "\"" else {
            let token = text.prefix { $0 != ";" && $0 != "," && $0 != " " && $0 != "\t" }
            return (String(token), text[token.endIndex...])
        }
        var value = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" { return (value, text[text.index(after: index)...]) }
            if character == "\\", text.index(after: index) < text.endIndex {
                index = text.index(after: index)
                value.append(text[index])
            } else {
                value.append(character)
            }
            index = text.index(after: index)
        }
        return (value, text[text.endIndex...])
    }

    /// The request for `target`, resolved against the request that answered it: same origin as
    /// `base` (when known) and below its path, else `.invalidRequest`.
    static func request(for target: String, after previous: NetworkRequest, base: URL?) throws -> NetworkRequest {
        let origin = base ?? URL(string: "http://depot.invalid/")!
        let previousURL = try previous.url(relativeTo: origin)
        guard let resolved = URL(string: target, relativeTo: previousURL)?.absoluteURL,
            let components = URLComponents(url: resolved, resolvingAgainstBaseURL: true),
            let baseComponents = URLComponents(url: origin, resolvingAgainstBaseURL: true)
        else {
            throw DepotError(.invalidRequest, "cannot read the next-page link \(target.debugDescription)")
        }
        var basePath = baseComponents.percentEncodedPath
        if !basePath.hasSuffix("/") { basePath += "/" }
        let sameOrigin =
            components.scheme?.lowercased() == baseComponents.scheme?.lowercased()
            && components.host?.lowercased() == baseComponents.host?.lowercased()
            && components.port == baseComponents.port
        let path = components.percentEncodedPath
        guard base == nil || sameOrigin, path.hasPrefix(basePath) || path + "/" == basePath else {
            throw DepotError(
                .invalidRequest, "the next-page link \(target.debugDescription) leaves the session's base URL")
        }
        var request = previous
        request.path = String(path.dropFirst(min(basePath.count, path.count)))
        request.query = components.queryItems ?? []
        // Sent as the server wrote it: its `+` and escapes mean what the server meant.
        request.serverQuery = components.percentEncodedQuery
        return request
    }
}

extension Pagination {
    /// The key of the server's own id in a list row, the one every page style reads.
    static let serverKey = "id"
}
