/// A row of a pull the app could not read (a field its model does not know how to decode, an
/// element that is not an object): it is not stored, and the pull's cursor stays at or before it so
/// that the next pull brings it again, once the app can read it.
///
/// ```swift
/// let report = try await messages.synchronize().value
/// for row in report.unreadable {
///     logger.warning("\(row.collection)/\(row.id ?? "?") unreadable: \(row.error)")
/// }
/// ```
public struct UnreadableRow: Sendable {
    /// The collection the row was pulled into.
    public var collection: String
    /// The row's id, when the raw JSON names one (by the configuration's identity key, else
    /// `"id"`); nil when it does not.
    public var id: String?
    /// The row exactly as the server sent it.
    public var raw: JSON
    /// Why it could not be read: a `DepotError` `.decoding` with the request of its page.
    public var error: DepotError

    /// Makes the account of an unreadable row.
    public init(collection: String, id: String?, raw: JSON, error: DepotError) {
        self.collection = collection
        self.id = id
        self.raw = raw
        self.error = error
    }
}
