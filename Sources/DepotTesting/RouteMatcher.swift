import Foundation

/// A method and path pattern: `:name` matches one segment, `*` matches the rest.
struct RoutePattern: Sendable {
    let method: String?
    let segments: [Substring]

    init(method: String?, pattern: String) {
        self.method = method?.uppercased()
        segments = pattern.split(separator: "/")
    }

    /// The captured parameters (percent-decoded), or nil when `rawPath` (still percent-encoded,
    /// so an encoded `/` stays inside its segment) does not match.
    func match(method: String, rawPath: String) -> [String: String]? {
        if let expected = self.method, expected != method { return nil }
        let parts = rawPath.split(separator: "/").map { Substring($0.removingPercentEncoding ?? String($0)) }
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            if segment == "*" { return parameters }
            guard index < parts.count else { return nil }
            if segment.hasPrefix(":") {
                parameters[String(segment.dropFirst())] = String(parts[index])
            } else if segment != parts[index] {
                return nil
            }
        }
        return parts.count == segments.count ? parameters : nil
    }
}
