import Depot
import Foundation
import HTTPTypes

extension StubServer {
    /// Whether GETs of resources carry validators, for tests of the HTTP cache in the store: a
    /// record keeps its `ETag` (`"<id>-<version>"`, new at each change), a list page gets a
    /// strong `ETag` made from its content, and ``lastModified`` goes out as `Last-Modified`. A
    /// GET whose `If-None-Match` names the current tag (or whose `If-Modified-Since` is that
    /// `Last-Modified`) is answered `304` with no body, counted in ``notModifiedCount``. Off by
    /// default.
    ///
    /// ```swift
    /// server.servesValidators = true
    /// server.cacheControl = "max-age=60"
    /// _ = try await messages.read("1").value
    /// _ = try await messages.read("1").value   // If-None-Match → 304
    /// #expect(server.notModifiedCount == 1)
    /// ```
    public var servesValidators: Bool {
        get { state.withLock { $0.caching.servesValidators } }
        set { state.withLock { $0.caching.servesValidators = newValue } }
    }

    /// `Cache-Control` sent on every GET of a resource (`"max-age=60"`, `"no-store"`); nil (the
    /// default) for none.
    public var cacheControl: String? {
        get { state.withLock { $0.caching.cacheControl } }
        set { state.withLock { $0.caching.cacheControl = newValue } }
    }

    /// `Vary` sent on every GET of a resource (`"Authorization"`, `"*"`); nil (the default) for none.
    public var vary: String? {
        get { state.withLock { $0.caching.vary } }
        set { state.withLock { $0.caching.vary = newValue } }
    }

    /// The `Last-Modified` of every resource while ``servesValidators`` is on; nil (the default)
    /// for none.
    public var lastModified: Date? {
        get { state.withLock { $0.caching.lastModified } }
        set { state.withLock { $0.caching.lastModified = newValue } }
    }

    /// How many `304 Not Modified` answers the resources gave.
    public var notModifiedCount: Int { state.withLock { $0.caching.notModified } }

    /// `response` to a GET of a resource with the caching headers this server is set to send; a
    /// `304` when the request's validators match.
    static func applyingCaching(
        _ response: StubResponse, to request: RecordedRequest, caching: inout StubCaching
    ) -> StubResponse {
        guard request.method == "GET", response.status == 200, response.streamedBody == nil else { return response }
        var response = response
        var headers: [(name: String, value: String)] = []
        if let cacheControl = caching.cacheControl { headers.append(("Cache-Control", cacheControl)) }
        if let vary = caching.vary { headers.append(("Vary", vary)) }
        var lastModified: String?
        if caching.servesValidators {
            if response.headers[.eTag] == nil { headers.append(("ETag", contentTag(response.body))) }
            lastModified = caching.lastModified.map(httpDate)
            if let lastModified { headers.append(("Last-Modified", lastModified)) }
        }
        response = StubResource.setting(headers, on: response)
        guard caching.servesValidators else { return response }
        let notModified: Bool
        if let ifNoneMatch = request.header("if-none-match"), let current = response.headers[.eTag] {
            let tags = ifNoneMatch.split(separator: ",").map { weakless($0.trimmingCharacters(in: .whitespaces)) }
            notModified = tags.contains("*") || tags.contains(weakless(current))
        } else if let since = request.header("if-modified-since"), let lastModified {
            notModified = since == lastModified
        } else {
            notModified = false
        }
        guard notModified else { return response }
        caching.notModified += 1
        var answer = StubResponse.empty(status: 304)
        for field in response.headers where field.name != .contentType && field.name != .contentLength {
            answer.headers.append(field)
        }
        return answer
    }

    /// A strong tag of `body`: 64-bit FNV-1a, in hex.
    static func contentTag(_ body: Data) -> String {
        "\"" + String(FNV1a.hash(body), radix: 16) + "\""
    }

    /// A tag without its weakness mark (`W/"x"` → `"x"`): `If-None-Match` compares weakly.
    private static func weakless(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
