/// A method and path pattern: `:name` matches one segment, `*` matches the rest.
struct RoutePattern: Sendable {
    let method: String?
    let segments: [Substring]

    init(method: String?, pattern: String) {
        self.method = method?.uppercased()
        segments = pattern.split(separator: "/")
    }

    /// The captured parameters, or nil when `path` does not match.
    func match(method: String, path: String) -> [String: String]? {
        if let expected = self.method, expected != method { return nil }
        let parts = path.split(separator: "/")
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
