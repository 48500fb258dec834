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
enum DeliveryLog {
    /// The reserved collection.
    static let collection = "__depot_deliveries"
    /// The record id of the store's delivery sequence (an entity's mark is keyed
    /// `<length>:<collection>/<id>`, which never starts with `#`).
    static let sequenceID = "#sequence"

    /// A read in flight: the store's delivery sequence when it began.
    struct Reader: Sendable {
        fileprivate let start: Int64

        /// Whether an answer to a write of `id` was stored since this read began, as `tx` sees it.
        func deliveredSince(collection: String, id: String, in tx: any RecordTransaction) throws -> Bool {
            try tx.deliveryMark(collection: collection, id: id) > start
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

    /// Starts a read of `storage`'s server: deliveries from now on are seen by the reader.
    ///
    /// - Throws: `DepotError` `.storage` when the store fails.
    static func beginRead(_ storage: Storage) async throws -> Reader {
        // A plain read: a write transaction (on PostgreSQL, the schema's lock) is not needed.
        Reader(start: number(try await storage.fetch(collection: collection, id: sequenceID)))
    }

    /// The mark record id of entity `id` of `collection`.
    static func key(_ collection: String, _ id: String) -> String { MovedIDs.key(collection: collection, id: id) }

    /// The sequence number a record holds; 0 for none (never traps on what it holds).
    static func number(_ record: StoredRecord?) -> Int64 {
        guard case .integer(let value)? = record?.object["seq"], value > 0 else { return 0 }
        return value
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
    /// sequence moves on, and each entity's mark becomes it.
    func noteDelivery(collection: String, ids: [String]) throws {
        let next = try deliverySequence() &+ 1
        try upsert(
            StoredRecord(
                collection: DeliveryLog.collection, id: DeliveryLog.sequenceID, object: ["seq": .integer(next)],
                syncState: .synced))
        for id in Set(ids) {
            try upsert(
                StoredRecord(
                    collection: DeliveryLog.collection, id: DeliveryLog.key(collection, id),
                    object: ["seq": .integer(next)], syncState: .synced))
        }
    }
}
