import Foundation

/// A batch request's identity: the `Idempotency-Key` it goes under, the route it goes to and the
/// outbox entries it carries, stored in the transaction that claims them, before the first send.
///
/// Until the batch's answer is known (stored, or a refusal that proves the server applied
/// nothing), its entries go again only in that batch, under that key: no other road claims them
/// (``StorageTransaction/claimOutboxInOrder(sequences:lease:now:batch:)``), and the next
/// `synchronize()` sends the batch again before anything else. The open batches are one record of
/// a collection of Depot's own, so they survive restarts on every storage without a schema of
/// their own.
struct OutboxBatch: Sendable, Hashable {
    static let collection = "__depot_outbox_batches"
    static let recordID = "open"
    /// The record that holds the open batches.
    static let list = DepotListRecord(collection: collection, id: recordID, key: "batches")

    /// The `Idempotency-Key` of every send of the batch.
    var key: String
    /// The entities' collection.
    var collection: String
    /// The route's method, e.g. `POST`.
    var method: String
    /// The route's path, as resolved for the request.
    var path: String
    /// The entries the batch carries, in sequence order.
    var sequences: [Int64]
    /// The objects the batch sent, in order: it goes again with these, so the server sees the
    /// same request under the same key.
    var objects: [JSON]

    /// The key of a batch of the entries with `keys`: the same for the same entries in any order,
    /// and never an entry's own key (a batch of one is not that entry's request, and the entry
    /// alone must never be answered with the batch's stored reply). Nil for no entries.
    static func key(for keys: [String]) -> String? {
        guard !keys.isEmpty else { return nil }
        let hash = FNV1a.hash(keys.sorted().joined(separator: ",").utf8)
        return "batch-\(keys.count)-" + String(hash, radix: 16)
    }

    var json: JSON {
        .object([
            "key": .string(key), "collection": .string(collection), "method": .string(method), "path": .string(path),
            "sequences": .array(sequences.map { .integer($0) }), "objects": .array(objects),
        ])
    }

    init(key: String, collection: String, method: String, path: String, sequences: [Int64], objects: [JSON]) {
        self.key = key
        self.collection = collection
        self.method = method
        self.path = path
        self.sequences = sequences
        self.objects = objects
    }

    /// A batch as stored; nil for a value that is not one (it holds nothing back).
    init?(json: JSON) {
        guard case .string(let key)? = json["key"], case .string(let collection)? = json["collection"],
            case .string(let method)? = json["method"], case .string(let path)? = json["path"],
            case .array(let sequences)? = json["sequences"], case .array(let objects)? = json["objects"]
        else { return nil }
        self.init(
            key: key, collection: collection, method: method, path: path,
            sequences: sequences.compactMap { if case .integer(let sequence) = $0 { sequence } else { nil } },
            objects: objects)
    }
}

extension StorageTransaction {
    /// The batches whose answer is not known yet, in the order they were opened.
    func openOutboxBatches() throws -> [OutboxBatch] {
        try values(of: OutboxBatch.list).compactMap(OutboxBatch.init(json:))
    }

    /// Stores `batches` as the open ones (none: the record goes).
    private func storeOutboxBatches(_ batches: [OutboxBatch]) throws {
        try store(batches.map(\.json), in: OutboxBatch.list)
    }

    /// Records `batch` as open (in place of an open batch with its key).
    func openOutboxBatch(_ batch: OutboxBatch) throws {
        var batches = try openOutboxBatches().filter { $0.key != batch.key }
        batches.append(batch)
        try storeOutboxBatches(batches)
    }

    /// Forgets the batch with `key`: its answer is known, and its entries are free again.
    func closeOutboxBatch(key: String) throws {
        let batches = try openOutboxBatches()
        guard batches.contains(where: { $0.key == key }) else { return }
        try storeOutboxBatches(batches.filter { $0.key != key })
    }

    /// The sequences of the entries open batches hold, but for the batch with key `except`.
    func outboxBatchSequences(except key: String?) throws -> Set<Int64> {
        Set(try openOutboxBatches().filter { $0.key != key }.flatMap(\.sequences))
    }
}
