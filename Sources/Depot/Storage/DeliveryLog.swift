import Foundation

/// Which entities took a server's answer to a write (a delivery) since a read of the server began,
/// so the read's older view never overwrites the newer answer: the rule "a pull page (or a read)
/// whose request began before a delivery never overwrites it".
///
/// The marks live in the store, not in process memory, so every process and every replica on one
/// database applies the same rule: the store keeps a delivery sequence, and each delivered entity
/// the sequence number of its last delivery, both in a collection of Depot's own
/// (`__depot_deliveries`), written by ``RecordTransaction/noteDelivery(collection:ids:)`` in the
/// transaction that stores the answer. A reader reads the sequence before its first request
/// (``beginRead(_:)``) and, in each merge transaction, asks whether an entity's mark is past it.
/// One mark is kept per entity (replaced by its next delivery).
///
/// Marks are bounded: a mark goes once no read that began before it is still open. Each process
/// knows its own reads in flight (``OpenReads``); once the store holds enough marks, a read that
/// begins or a write's answer stored removes those every open read began after
/// (``removeMarks(in:sequence:)``), and the sequence row keeps the newest mark removed (the
/// floor). A read of another process that began before the floor cannot tell a removed mark from
/// none, and counts an entity without a mark as delivered: its older copy is not stored (safe;
/// the next read stores it).
enum DeliveryLog {
    /// The reserved collection.
    static let collection = "__depot_deliveries"
    /// The record id of the store's delivery sequence (an entity's mark is keyed
    /// `<length>:<collection>/<id>`, which never starts with `#`).
    static let sequenceID = "#sequence"

    /// A read in flight: the store's delivery sequence when it began, and its place among this
    /// process's open reads (held as long as the read can merge a copy).
    struct Reader: Sendable {
        fileprivate let start: Int64
        fileprivate let token: OpenReads.Token?

        /// Whether an answer to a write of `id` was stored since this read began, as `tx` sees it.
        /// An entity without a mark counts as delivered when marks newer than this read's start
        /// were removed (a read of another process, see ``DeliveryLog``).
        func deliveredSince(collection: String, id: String, in tx: any RecordTransaction) throws -> Bool {
            let mark = try tx.deliveryMark(collection: collection, id: id)
            if mark > 0 { return mark > start }
            return try DeliveryLog.floor(tx.fetch(collection: DeliveryLog.collection, id: DeliveryLog.sequenceID))
                > start
        }

        /// Whether any answer to a write was stored since this read began: when not, no entity
        /// needs asking.
        func anyDeliverySince(in tx: any RecordTransaction) throws -> Bool {
            try tx.deliverySequence() > start
        }
    }

    /// A read that may or may not go to the server (a repository's `read` under its strategy):
    /// ``begin(_:)`` right before its request.
    final class Scope: Sendable {
        private let reader = LockedValue<Reader?>(nil)

        /// Makes a scope with no read begun.
        init() {}

        /// Begins the read of `storage`'s server (once). A store that cannot say leaves the read
        /// without a start: its answers are then stored as they come.
        func begin(_ storage: Storage) async {
            guard reader.withLock({ $0 }) == nil, let started = try? await DeliveryLog.beginRead(storage) else {
                return
            }
            reader.withLock { $0 = $0 ?? started }
        }

        /// The read begun, if any.
        var current: Reader? { reader.withLock { $0 } }
    }

    /// Starts a read of `storage`'s server: deliveries from now on are seen by the reader. The
    /// read is one of this process's open reads (``OpenReads``) while the reader lives; it removes
    /// the marks no open read needs, once enough have gathered.
    ///
    /// - Throws: `DepotError` `.storage` when the store fails.
    static func beginRead(_ storage: Storage) async throws -> Reader {
        let token = OpenReads.shared.open(storage)
        // A plain read: a write transaction (on PostgreSQL, the schema's lock) is not needed, but
        // once per store, to name it.
        var sequence = try await storage.fetch(collection: collection, id: sequenceID)
        if storeID(sequence) == nil, let named = try? await nameStore(storage) { sequence = named }
        let start = number(sequence)
        OpenReads.shared.started(token, on: storage, store: storeID(sequence) ?? "", at: start)
        await removeMarks(in: storage, sequence: sequence)
        return Reader(start: start, token: token)
    }

    /// Gives the store an id in its sequence row (kept with the row for ever); returns the row.
    private static func nameStore(_ storage: Storage) async throws -> StoredRecord {
        try await storage.transaction { tx in
            var row = try tx.fetch(collection: collection, id: sequenceID) ?? sequenceRow()
            guard storeID(row) == nil else { return row }
            row.object["store"] = .string(UUID.randomV4().uuidString)
            try tx.upsert(row)
            return row
        }
    }

    /// A new sequence row: no delivery yet.
    static func sequenceRow() -> StoredRecord {
        StoredRecord(collection: collection, id: sequenceID, object: [:], syncState: .synced)
    }

    /// The mark record id of entity `id` of `collection`.
    static func key(_ collection: String, _ id: String) -> String { MovedIDs.key(collection: collection, id: id) }

    /// The sequence number a record holds; 0 for none (never traps on what it holds).
    static func number(_ record: StoredRecord?) -> Int64 {
        guard case .integer(let value)? = record?.object["seq"], value > 0 else { return 0 }
        return value
    }

    /// The newest mark removed, as the sequence row holds it; 0 for none.
    static func floor(_ sequence: StoredRecord?) -> Int64 {
        guard case .integer(let value)? = sequence?.object["floor"], value > 0 else { return 0 }
        return value
    }

    /// How many marks the store holds, as its sequence row counts them; 0 for none.
    static func marks(_ sequence: StoredRecord?) -> Int64 {
        guard case .integer(let value)? = sequence?.object["marks"], value > 0 else { return 0 }
        return value
    }

    /// The store's id, as its sequence row holds it (made with its first read or delivery); nil
    /// for none.
    static func storeID(_ sequence: StoredRecord?) -> String? {
        guard case .string(let id)? = sequence?.object["store"], !id.isEmpty else { return nil }
        return id
    }
}

extension RecordTransaction {
    /// The store's delivery sequence: how many deliveries it has noted.
    func deliverySequence() throws -> Int64 {
        DeliveryLog.number(try fetch(collection: DeliveryLog.collection, id: DeliveryLog.sequenceID))
    }

    /// The sequence number of the last delivery to entity `id` of `collection`; 0 for none.
    func deliveryMark(collection: String, id: String) throws -> Int64 {
        DeliveryLog.number(try fetch(collection: DeliveryLog.collection, id: DeliveryLog.key(collection, id)))
    }

    /// Notes that answers for `ids` of `collection` are stored by this transaction: the store's
    /// sequence moves on, and each entity's mark becomes it (the sequence row counts the marks, so
    /// a removal knows when enough have gathered).
    func noteDelivery(collection: String, ids: [String]) throws {
        var sequence =
            try fetch(collection: DeliveryLog.collection, id: DeliveryLog.sequenceID) ?? DeliveryLog.sequenceRow()
        let next = DeliveryLog.number(sequence) &+ 1
        var marks = DeliveryLog.marks(sequence)
        for key in Set(ids).map({ DeliveryLog.key(collection, $0) }) {
            if try fetch(collection: DeliveryLog.collection, id: key) == nil { marks &+= 1 }
            try upsert(
                StoredRecord(
                    collection: DeliveryLog.collection, id: key, object: ["seq": .integer(next)], syncState: .synced))
        }
        sequence.object["seq"] = .integer(next)
        sequence.object["marks"] = .integer(marks)
        if DeliveryLog.storeID(sequence) == nil { sequence.object["store"] = .string(UUID.randomV4().uuidString) }
        try upsert(sequence)
    }
}
