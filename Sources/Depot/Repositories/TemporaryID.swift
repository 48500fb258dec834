import DepotPromise
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
/// assigns the id). Depot records each one it makes in the store, in the create's transaction,
/// and decides from that record, never from the id's spelling: an id the app chose goes to the
/// server as it is, whatever it looks like (``CRUDNetworkingStorageRepository/isTemporary(_:)``). Once the create is delivered, the record, the entity's later writes and
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
    ///
    /// The id is remembered as one Depot made until a local create stores an entity under it,
    /// which records that fact in the store: its create then leaves the id out, as for a
    /// dictionary created without one.
    public static func make<ID>(_ type: ID.Type = ID.self) -> ID? {
        // Below 2^53, so a JavaScript client reads it exactly too.
        let number = -Int64.random(in: 1...(1 << 53))
        let made: ID?
        switch type {
        case is Int.Type: made = Int(number) as? ID
        case is Int64.Type: made = number as? ID
        case is String.Type: made = (stringPrefix + UUID.randomV4().uuidString) as? ID
        case is UUID.Type: made = UUID.randomV4() as? ID
        default: made = nil
        }
        if let text = (made as? any PathComponentConvertible)?.pathComponent {
            issued.withLock { _ = $0.insert(text) }
        }
        return made
    }

    /// The ids ``make(_:)`` gave this process that no create has stored yet.
    private static let issued = LockedValue<Set<String>>([])

    /// Whether ``make(_:)`` gave this process the id spelled `text`, not yet stored by a create.
    static func wasIssued(_ text: String) -> Bool {
        issued.withLock { $0.contains(text) }
    }

    /// Forgets the ids of `texts` ``make(_:)`` gave: their creates are stored, the store holds
    /// the fact now.
    static func stored(_ texts: some Sequence<String>) {
        issued.withLock { issued in
            for text in texts { issued.remove(text) }
        }
    }

    /// Whether `id` (an id's text, ``PathComponentConvertible/pathComponent``) is spelled as a
    /// temporary id: a negative integer, or a string with ``stringPrefix``. A spelling is not a
    /// fact: an app may choose such an id itself. Depot decides from the store's record instead
    /// (``CRUDNetworkingStorageRepository/isTemporary(_:)``).
    @available(
        *, deprecated, message: "an id's spelling does not say who made it: use the repository's isTemporary(_:)"
    )
    public static func isTemporary(_ id: String) -> Bool {
        if id.hasPrefix(stringPrefix) { return true }
        guard id.hasPrefix("-"), id.count > 1 else { return false }
        return id.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }
}
