import Foundation
import HTTPTypes

/// Redirects, alike on every transport: the transports never follow one themselves; this wrapper
/// of their single attempt does. A GET or HEAD follows any 301, 302, 303, 307 or 308; when the
/// origin (scheme, host or port) changes, only headers that cannot identify the caller go along
/// (``crossOriginHeaders``): `Authorization`, `Cookie`, an API key the app declared in
/// ``RepositoryConfiguration/identifyingHeaders``, a session header and whatever an interceptor
/// added all stay behind. Any other method follows only a 307 or 308 to the same
/// origin, with its method and body, and is never turned into a GET. A redirect not followed comes
/// back as the answer it is (the pipeline makes it a `.status` error naming the `Location`); a
/// loop, or more than ``maximumRedirects`` hops, is a `.status` error listing the chain.
extension RequestPipeline {
    /// The most redirects one attempt follows.
    public static let maximumRedirects = 10

    /// The only headers a redirect to another origin keeps: content negotiation and the client's
    /// name, none of which can identify the caller. Every other header (credentials, API keys,
    /// tenant headers, validators of the first origin's cache) is dropped, whoever set it.
    public static let crossOriginHeaders: Set<HTTPField.Name> = [
        .accept, .acceptLanguage, .acceptEncoding, .contentType, .contentLanguage, .userAgent, .cacheControl,
    ]

    /// `attempt`, following redirects as described above.
    package static func followingRedirects(_ attempt: @escaping StartAttempt) -> StartAttempt {
        { request, url, summary, timeout, completion in
            let slot = CallSlot()
            @Sendable func start(_ request: NetworkRequest, _ url: URL, chain: [URL]) {
                let call = attempt(request, url, summary, timeout) { result in
                    guard case .success(let response) = result,
                        let next = redirectTarget(of: response, for: request.method, from: url)
                    else { return completion(result) }
                    if chain.contains(next) || chain.count > maximumRedirects {
                        let hops = (chain + [next]).map(\.absoluteString).joined(separator: " → ")
                        let what = chain.contains(next) ? "a redirect loop" : "more than \(maximumRedirects) redirects"
                        return completion(
                            .failure(
                                DepotError(
                                    .status, "\(what): \(hops)", request: summary, status: response.status,
                                    responseHeaders: DepotError.Headers(response.headers))))
                    }
                    var followed = request
                    if !sameOrigin(url, next) {
                        followed.headers = HTTPFields(request.headers.filter { crossOriginHeaders.contains($0.name) })
                    }
                    start(followed, next, chain: chain + [next])
                }
                slot.hold(call, order: chain.count)
            }
            start(request, url, chain: [url])
            return slot
        }
    }

    /// Where `response` sends a `method` request to `url` next, or nil when it is not a redirect
    /// Depot follows.
    static func redirectTarget(of response: NetworkResponse, for method: NetworkRequest.Method, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("location"),
            let target = URL(string: location, relativeTo: url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https", target.host != nil
        else { return nil }
        if method == .get || method == .head { return target }
        return (response.status == 307 || response.status == 308) && sameOrigin(url, target) ? target : nil
    }

    /// Whether two URLs have the same scheme, host and port.
    static func sameOrigin(_ left: URL, _ right: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return left.scheme?.lowercased() == right.scheme?.lowercased()
            && left.host?.lowercased() == right.host?.lowercased() && port(left) == port(right)
    }
}
