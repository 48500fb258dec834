import Depot
import Foundation

/// The fleet crash test's local writes, and what the server must hold once every one is
/// forwarded: creates, whole updates, merge patches and deletes over a fixed set of entities, a
/// fifth of them in a collection whose ids the server assigns.
public struct FleetWorkload: Sendable {
    /// How many writes of each kind were made.
    public struct Counts: Sendable, CustomStringConvertible {
        /// Local creates.
        public var creates = 0
        /// Whole-object updates (`PUT`).
        public var updates = 0
        /// Merge patches (`PATCH`).
        public var patches = 0
        /// Deletes.
        public var deletes = 0

        /// All of them.
        public var total: Int { creates + updates + patches + deletes }

        /// `"610 creates, 720 updates, 1,080 patches, 590 deletes"`.
        public var description: String {
            "\(creates) creates, \(updates) updates, \(patches) patches, \(deletes) deletes"
        }
    }

    /// Every entity as the server must end up holding it, by ``key(_:_:)``; deleted ones absent.
    public private(set) var expected: [String: FleetItem] = [:]
    /// The entity (its ``key(_:_:)``) each revision was written to.
    public private(set) var revisions: [Int: String] = [:]
    /// The entity each revision was written to as Depot keeps its order: its ``key(_:_:)``, and
    /// for a ticket also which create it follows (`#n`), since a ticket created again gets a new
    /// temporary id and is a new entity to Depot and to the server.
    public private(set) var orderedEntities: [Int: String] = [:]
    /// The entity (its ``key(_:_:)``) of each temporary id given to a ticket.
    public private(set) var temporaryIDs: [String: String] = [:]
    /// The entities deleted since the last ``mark()``.
    public private(set) var deletedSinceMark: Set<String> = []
    /// The writes made so far.
    public private(set) var counts = Counts()
    /// What every name of this workload starts with after `i-` or `t-`.
    public let prefix: String
    /// Every entity's ``key(_:_:)``.
    private let keys: [String]
    /// How many times each entity was created.
    private var creates: [String: Int] = [:]
    /// The last revision given.
    private var revision = 0
    /// Chooses entities, kinds of write and values.
    private var random: SeededGenerator

    /// A workload over `entities` entities (at least 2), none of which exists yet; a fifth of them
    /// (at least one) are in ``FleetItems/serverIDs``. Its choices come from `seed`; every name
    /// starts with `prefix` (a store that outlives runs gets new names each run).
    public init(entities: Int, seed: UInt64, prefix: String = "") {
        let tickets = max(entities / 5, 1)
        let items = max(entities - tickets, 1)
        keys =
            (1...items).map { Self.key(FleetItems.clientIDs, "i-\(prefix)\($0)") }
            + (1...tickets).map { Self.key(FleetItems.serverIDs, "t-\(prefix)\($0)") }
        random = SeededGenerator(seed: seed)
        self.prefix = prefix
    }

    /// Whether `name` is one of this workload's (a store that outlives runs holds earlier runs' too).
    public func owns(name: String) -> Bool {
        name.hasPrefix("i-\(prefix)") || name.hasPrefix("t-\(prefix)")
    }

    /// `"items/i-3"`: an entity's collection and name.
    public static func key(_ collection: String, _ name: String) -> String { "\(collection)/\(name)" }

    /// The collection part of a ``key(_:_:)``.
    public static func collection(of key: String) -> String { String(key.prefix { $0 != "/" }) }

    /// Starts a new count of ``deletedSinceMark``.
    public mutating func mark() { deletedSinceMark = [] }

    /// Makes `count` local writes, each to a random entity: a create when it does not exist, else
    /// an update, a patch or a delete. `repositories` holds one repository per collection.
    ///
    /// - Throws: what the local store threw (any failure is a failure of the test).
    public mutating func write(_ count: Int, to repositories: [String: FleetItems]) async throws {
        for _ in 0..<count {
            let key = keys.randomElement(using: &random)!
            let collection = Self.collection(of: key)
            guard let repository = repositories[collection] else {
                preconditionFailure("no repository for \(collection)")
            }
            revision += 1
            revisions[revision] = key
            if expected[key] == nil { creates[key, default: 0] += 1 }
            orderedEntities[revision] = collection == FleetItems.serverIDs ? "\(key)#\(creates[key] ?? 0)" : key
            guard var item = expected[key] else {
                let name = String(key.dropFirst(collection.count + 1))
                // The server replaces a temporary id with its own; a recreated ticket gets a new one.
                let id = collection == FleetItems.serverIDs ? "tmp-\(name)-\(revision)" : name
                if id != name { temporaryIDs[id] = key }
                let item = FleetItem(id: id, name: name, revision: revision, text: "created \(revision)", tag: tag())
                _ = try await repository.create(item).value
                expected[key] = item
                counts.creates += 1
                continue
            }
            item.revision = revision
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<30:
                item.text = "updated \(revision)"
                item.tag = tag()
                _ = try await repository.update(item).value
                expected[key] = item
                counts.updates += 1
            case 30..<78:
                if Bool.random(using: &random) { item.text = "patched \(revision)" }
                if Bool.random(using: &random) { item.tag = tag() }
                _ = try await repository.patch(item).value
                expected[key] = item
                counts.patches += 1
            default:
                _ = try await repository.delete(id: item.id).value
                expected[key] = nil
                deletedSinceMark.insert(key)
                counts.deletes += 1
            }
        }
    }

    /// A tag, or none a third of the time (a patch then removes the member with `null`).
    private mutating func tag() -> String? {
        Int.random(in: 0..<3, using: &random) == 0 ? nil : ["red", "green", "blue"].randomElement(using: &random)
    }
}
