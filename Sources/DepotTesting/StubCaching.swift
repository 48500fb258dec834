import Foundation

/// How a ``StubServer``'s resources answer for HTTP caching (see ``StubServer/servesValidators``).
struct StubCaching: Sendable {
    /// Whether GETs of resources carry validators and conditional GETs are answered `304`.
    var servesValidators = false
    /// `Cache-Control` on every GET of a resource; nil for none.
    var cacheControl: String?
    /// `Vary` on every GET of a resource; nil for none.
    var vary: String?
    /// `Last-Modified` on every GET of a resource while validators are served; nil for none.
    var lastModified: Date?
    /// The `304`s answered so far.
    var notModified = 0
}
