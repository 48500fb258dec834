import Foundation

/// The ids Depot makes for an entity created offline whose id the server assigns.
///
/// A create of a dictionary without an `"id"` (or of an entity whose id is ``make(_:)``'s) made
/// while the server cannot be reached is stored under a temporary id:
///
/// | id type | temporary id |
/// | --- | --- |
/// | `Int`, `Int64` | a negative number, e.g. `-4503599627370` |
/// | `String` | `"local-"` and a UUID, e.g. `"local-5B0E…"` |
/// | `UUID` | a random UUID (not told apart by its text: list `"id"` in ``RepositoryConfiguration/serverOwnedKeys`` when the server assigns UUIDs) |
///
/// A temporary id is local only: it is never sent (a create's body leaves it out, and the server
/// assigns the id). Once the create is delivered, the record, the entity's later writes and
/// every read under the temporary id move to the server's id;
/// ``CRUDNetworkingStorageRepository/serverID(of:)`` tells it.
///
/// ```swift
/// let draft = try await notes.create(["title": "offline"]).value.value   // draft.id == -81…
/// // … after the forwarder or synchronize() delivered it:
/// let id = try await notes.serverID(of: draft.id)                       // 12
/// ```
public enum TemporaryID {
    /// The prefix of a temporary `String` id.
    public static let stringPrefix = "local-"

    /// A new temporary id of type `ID`; nil for an id type Depot cannot make one of.
    public static func make<ID>(_ type: ID.Type = ID.self) -> ID? {
        // Below 2^53, so a JavaScript client reads it exactly too.
        let number = -Int64.random(in: 1...(1 << 53))
        switch type {
        case is Int.Type: return Int(number) as? ID
        case is Int64.Type: return number as? ID
        case is String.Type: return (stringPrefix + UUID.randomV4().uuidString) as? ID
        case is UUID.Type: return UUID.randomV4() as? ID
        default: return nil
        }
    }

    /// Whether `id` (an id's text, ``PathComponentConvertible/pathComponent``) reads as a
    /// temporary id: a negative integer, or a string with ``stringPrefix``.
    public static func isTemporary(_ id: String) -> Bool {
        if id.hasPrefix(stringPrefix) { return true }
        guard id.hasPrefix("-"), id.count > 1 else { return false }
        return id.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }
}
