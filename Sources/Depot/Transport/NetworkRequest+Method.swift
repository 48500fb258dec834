import Foundation

extension NetworkRequest {
    /// An HTTP method.
    public struct Method: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The method's name, e.g. `"GET"`.
        public let rawValue: String
        /// Makes a method from its name.
        public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
        /// Makes a method from its name.
        public init(stringLiteral value: String) { self.init(rawValue: value) }
        /// The method's name.
        public var description: String { rawValue }

        /// GET.
        public static let get = Method(rawValue: "GET")
        /// POST.
        public static let post = Method(rawValue: "POST")
        /// PUT.
        public static let put = Method(rawValue: "PUT")
        /// PATCH.
        public static let patch = Method(rawValue: "PATCH")
        /// DELETE.
        public static let delete = Method(rawValue: "DELETE")
        /// HEAD.
        public static let head = Method(rawValue: "HEAD")
        /// OPTIONS.
        public static let options = Method(rawValue: "OPTIONS")

        /// True for methods that may be repeated without changing the result (RFC 9110 §9.2.2).
        public var isIdempotent: Bool { [.get, .head, .put, .delete, .options].contains(self) || rawValue == "TRACE" }
    }
}
