import Foundation

/// The app's change to a record not yet synced, as the keys it set since the server's last
/// answer: what goes on top of any newer copy the server sends, so a read shows the server's
/// answer with the app's own pending change over it (a field only the server fills, such as a
/// detail field a create never had, comes from the server; a field the app edited stays the app's).
///
/// A key counts as set when the record's object holds a value its snapshot (nothing, for a record
/// the server never answered) does not, `null` and a missing key being the same. A key the object
/// lacks is no change: a record keeps its local object under a newer snapshot after a write's
/// answer, so a field the server added is missing from it without the app having cleared it (a
/// field the app cleared goes as `null` in its outbox entry, and the server's answer to it
/// settles the record).
///
/// A key the server owns (``RepositoryConfiguration/serverOwnedKeys``: a stamp, the account a
/// per-caller answer names) is never the app's change, whatever the app's entity held for it (an
/// older answer's stamp, another account's `viewer`): a read shows the server's value for it.
struct PendingChange: Sendable, Hashable {
    /// The keys the app set, with their values.
    var set: JSONObject

    /// The change `record` holds over its snapshot, the keys in `serverOwnedKeys` left out.
    init(_ record: StoredRecord, serverOwnedKeys: Set<String> = []) {
        let base = record.snapshot ?? [:]
        set = record.object.filter { $0.value != base[$0.key] ?? .null && !serverOwnedKeys.contains($0.key) }
    }

    /// `object` (the server's copy as the app models it) with this change on top.
    func applied(to object: JSONObject) -> JSONObject {
        object.merging(set) { _, pending in pending }
    }
}
