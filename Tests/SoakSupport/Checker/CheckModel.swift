import Depot
import Foundation

/// A way a round broke the reference model: a kind (`LOST`, `DOUBLED`, `STALE`, `ACCOUNT`,
/// `SUMMARY`, `MISSING` (`MISSING CASE` when the app holds the id in another spelling), `UNREADABLE`, `NOT FOUND`, `FALSE CONFLICT`, `REFUSED OFFLINE`,
/// `OVERWRITE`, `CREATE REFUSED`, `LOGOUT`, `CURSOR`, `DIVERGED`, `STUCK`, `HANG`, `FRESHNESS`,
/// `SHAPE`, `MIGRATION`, `CACHE`, `QUARANTINE`, `ORPHAN`, `STATE`, `PHANTOM`, `LOOP`, `LINK`,
/// `DROPPED`, `DEADLINE`, `CREDENTIAL`),
/// the step where it showed (nil: at the end), and what was seen.
public struct CheckViolation: Sendable, Hashable, CustomStringConvertible {
    /// The kind: shrinking keeps a program that still breaks the model this way.
    public var kind: String
    /// The step's index, nil for the final checks.
    public var step: Int?
    /// What was seen against what the model allows.
    public var message: String

    /// `STALE at step 7: …`.
    public var description: String { "\(kind)\(step.map { " at step \($0)" } ?? " at the end"): \(message)" }
}

/// The reference model: what the app and the server may hold for each entity, from what the app
/// was told (each write's answer) and what other clients did, independent of Depot's code.
///
/// Per entity: the app's last acknowledged write (a value, or deleted), the writes whose outcome
/// the app was not told (failed calls: they may land), and other clients' writes since. A read may
/// answer any of those states; after the final flush and pull the server must hold one of them,
/// in one object, and the store exactly what the server holds. An entity whose write the server
/// refused (4xx: a conflict, a missing object), or met a conflict Depot judged before sending it
/// (``CheckConflicts``), is judged only for doubling: the app was told.
public struct CheckModel: Sendable {
    /// One entity's states.
    public struct Entity: Sendable {
        /// The last acknowledged app write: `.some(value)`, `.some(nil)` for a delete; nil if none.
        var last: String??
        /// Whether that acknowledgement came from the server (not the store).
        var lastRemote = false
        /// States of app writes since then whose outcome is unknown.
        var uncertain: Set<String?> = []
        /// States other clients wrote since the last acknowledged app write.
        var otherAfter: Set<String?> = []
        /// Every value written to it, by anyone.
        var values: Set<String> = []
        /// Another client wrote a value the app cannot read: its states are judged no further.
        var unreadable = false
        /// When the last acknowledged app write was a create (or re-create) the store acknowledged:
        /// how many refusals the server had made by then (a later 404 to a PUT or PATCH of it means
        /// the create went out as an update).
        var createdLocally: Int?

        /// The states a read or the final server may show; nil when anything goes (no write acknowledged).
        var allowed: Set<String?>? {
            guard let last, !unreadable else { return nil }
            return uncertain.union(otherAfter).union([last])
        }
    }

    /// Entities by handle.
    public internal(set) var entities: [Int: Entity] = [:]
    /// The handle that wrote each value.
    public internal(set) var owners: [String: Int] = [:]

    /// An empty model.
    public init() {}

    /// A write of `state` to `handle` began.
    mutating func began(_ handle: Int, state: String?) {
        if let state {
            entities[handle, default: Entity()].values.insert(state)
            owners[state] = handle
        }
    }

    /// The app's write of `state` to `handle` was acknowledged (`remote`: by the server).
    mutating func acknowledged(_ handle: Int, state: String?, remote: Bool) {
        var entity = entities[handle, default: Entity()]
        entity.last = .some(state)
        entity.lastRemote = remote
        entity.uncertain = []
        entity.otherAfter = []
        entity.createdLocally = nil
        // The server took the app's readable version over an unreadable one.
        if remote { entity.unreadable = false }
        entities[handle] = entity
    }

    /// The store acknowledged a create of `handle` when the server had made `refusals` refusals.
    mutating func createdLocally(_ handle: Int, refusals: Int) { entities[handle]?.createdLocally = refusals }

    /// The app's write of `state` to `handle` failed: it may still land.
    mutating func failed(_ handle: Int, state: String?) {
        entities[handle, default: Entity()].uncertain.insert(state)
    }

    /// Another client wrote `state` to `handle`'s server object.
    mutating func other(_ handle: Int, state: String?) {
        began(handle, state: state)
        entities[handle, default: Entity()].otherAfter.insert(state)
        // A readable version (or a deletion) over an unreadable one: judged again from here.
        entities[handle, default: Entity()].unreadable = false
    }

    /// Another client made `handle`'s server object unreadable.
    mutating func corrupted(_ handle: Int) { entities[handle, default: Entity()].unreadable = true }

    /// The handle whose entity `value` belongs to.
    func owner(of value: String?) -> Int? { value.flatMap { owners[$0] } }
}
