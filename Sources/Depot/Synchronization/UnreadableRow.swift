import Foundation

/// A row of a pull the app could not read (a field its model does not know how to decode, an
/// element that is not an object). It is kept raw in the store's quarantine, out of the app's
/// reads, and read again at the start of every pull: once the app can read it (after an update of
/// its model) it is merged like any pulled row, with no request and no reset. The pull's cursor
/// also stays at or before it, so the next pull brings it again. A row without an id cannot be
/// merged and stays in the quarantine until a readable version of it comes.
/// ``SynchronizableRepository/quarantined()`` lists what is kept.
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
    /// When a pull first met it (kept across pulls while it stays unreadable); nil when unknown.
    public var firstSeen: Date?

    /// Makes the account of an unreadable row.
    public init(collection: String, id: String?, raw: JSON, error: DepotError, firstSeen: Date? = nil) {
        self.collection = collection
        self.id = id
        self.raw = raw
        self.error = error
        self.firstSeen = firstSeen
    }
}
