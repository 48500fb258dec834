import Foundation

/// The fields of an entity the app writes: the one judge of whether the server's copy of an entity
/// is still the one a write was based on (DESIGN.md, "Facts, not guesses"), on every road that
/// asks it (a write whose record's version is unknown after an answer without an `ETag`, and a
/// write refused `428`, on the outbox's channel and on a repository without a store).
///
/// Two copies are the same when they hold the same fields the app writes. Left out: the keys the
/// server owns (``RepositoryConfiguration/serverOwnedKeys``), the fields the model does not know
/// (a copy is read into the entity and written back, so a server stamp the model has no property
/// for goes), and `null` members (`null` and absent alike). Never whole-document equality: a
/// server that stamps `updated_at` on every write would make every copy "changed".
struct WrittenFields: Sendable {
    /// The keys the server owns.
    var serverOwnedKeys: Set<String>
    /// A copy as the entity models it (read into the entity and written back); nil when the copy
    /// does not read as the entity.
    var modelled: @Sendable (JSONObject) -> JSONObject?

    /// Judges copies by `modelled` and `serverOwnedKeys`.
    init(serverOwnedKeys: Set<String>, modelled: @escaping @Sendable (JSONObject) -> JSONObject?) {
        self.serverOwnedKeys = serverOwnedKeys
        self.modelled = modelled
    }

    /// Judges copies of `Entity` as `configuration` spells and owns them.
    init<Entity>(_ configuration: RepositoryConfiguration, entity: Entity.Type) {
        let coding = configuration.coding
        self.init(serverOwnedKeys: configuration.serverOwnedKeys) { object in
            guard let entity = try? JSONMapping.entity(Entity.self, from: .object(object), coding: coding) else {
                return nil
            }
            return try? JSONMapping.object(entity, coding: coding)
        }
    }

    /// The fields of `copy` the app writes; nil when `copy` is not an object. A copy that does not
    /// read as the entity keeps every member it has (so it differs from one that does).
    func fields(of copy: JSON) -> JSONObject? {
        guard case .object(let object) = copy else { return nil }
        let known = modelled(object) ?? object
        return known.filter { $0.value != .null && !serverOwnedKeys.contains($0.key) }
    }

    /// Whether `copy` and `other` hold the same fields the app writes.
    func same(_ copy: JSON, _ other: JSON) -> Bool {
        if copy == other { return true }
        guard let written = fields(of: copy), let others = fields(of: other) else { return false }
        return written == others
    }
}
