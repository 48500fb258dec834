import Foundation

// The async local writes: each runs the one rule of LocalStore+InTransaction.swift in its own
// transaction, then wakes the forwarders.

extension LocalStore {
    /// Stores local creates, all in one transaction: one taken id (`.conflict`) writes nothing.
    /// Each is recorded in the outbox when ``outboxPayload`` is set, under `idempotencyKey` when
    /// given (one entity only: the key of a direct send that fell back).
    /// With `madeIDs`, the ids are ones Depot made (see ``create(_:idempotencyKey:madeIDs:in:)``).
    func create(_ entities: [Entity], idempotencyKey: String? = nil, madeIDs: Bool = false) async throws -> [Entity] {
        precondition(idempotencyKey == nil || entities.count == 1, "one idempotency key is for one write")
        let local = self
        let created = try await storage.transaction { tx in
            try local.create(entities, idempotencyKey: idempotencyKey, madeIDs: madeIDs, in: tx)
        }
        TemporaryID.stored(entities.map(\.id.pathComponent))
        notifyOutbox()
        return created
    }

    /// Stores local updates, all in one transaction (`.updated`, or still `.created`); see
    /// ``update(_:patch:idempotencyKey:in:)``.
    func update(_ entities: [Entity], patch: Bool = false, idempotencyKey: String? = nil) async throws -> [Entity] {
        precondition(idempotencyKey == nil || entities.count == 1, "one idempotency key is for one write")
        let local = self
        let updated = try await storage.transaction { tx in
            try local.update(entities, patch: patch, idempotencyKey: idempotencyKey, in: tx)
        }
        notifyOutbox()
        return updated
    }

    /// Deletes locally, all in one transaction: one missing id (`.notFound`) deletes nothing; see
    /// ``delete(ids:idempotencyKey:in:)``.
    func delete(ids: [String], idempotencyKey: String? = nil) async throws {
        precondition(idempotencyKey == nil || ids.count == 1, "one idempotency key is for one write")
        let local = self
        try await storage.transaction { tx in try local.delete(ids: ids, idempotencyKey: idempotencyKey, in: tx) }
        notifyOutbox()
    }

    /// Wakes the forwarders of this storage after a write recorded outbox entries.
    private func notifyOutbox() {
        if outboxPayload != nil { OutboxCoordinator.notify(storage) }
    }
}
