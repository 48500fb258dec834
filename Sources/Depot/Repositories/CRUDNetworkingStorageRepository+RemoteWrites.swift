import Foundation

extension CRUDNetworkingStorageRepository {
    /// Creates the entity. A local create is stored `.created` and recorded in the outbox in the
    /// same transaction; a ``Forwarder`` (or, under a synchronizing local-first rule, this call)
    /// sends it on.
    ///
    /// A remote create carries an `Idempotency-Key` made before it is sent. When it fails in a way
    /// that falls back (no answer, a timeout, a 5xx), the server may have applied it all the same,
    /// so the local create is recorded in the outbox under that same key: a server that honours
    /// keys applies the write once. (A server that ignores keys may apply it twice; see
    /// ``RepositoryConfiguration/createMethod`` for client-chosen ids with `PUT`.)
    public func create(_ entity: Entity) -> Promise<Sourced<Entity>> {
        let (local, writes, remote, outbox, key) = (
            self.local, outboxLocal, self.remote, outboxEngineLater, entity.id.pathComponent
        )
        let idempotencyKey = UUID.randomV4().uuidString
        if let now = sendingNow(
            .create, entityID: key, idempotencyKey: idempotencyKey,
            write: { writes, tx in try writes.create([entity], idempotencyKey: idempotencyKey, in: tx)[0] },
            answer: { answer, recorded in try Self.answered(answer, coding: writes.coding) ?? recorded.value })
        {
            return now
        }
        return run(
            .create,
            remote: {
                try await Self.forwardEarlier(key, outbox())
                return try await remote.createAnswer(
                    body: try remote.encoded(entity), keepJSON: true, idempotencyKey: idempotencyKey,
                    temporaryID: TemporaryID.wasIssued(key) ? key : nil
                ).value
            },
            local: { sentFirst in
                RemoteAnswer(entity: try await writes.create(entity, idempotencyKey: sentFirst ? idempotencyKey : nil))
            },
            afterRemote: { try await local.storeWriteAnswer($0, sentID: key, sent: entity) },
            afterLocal: { _ in try await Self.forward(key, outbox(), handingOff: true) },
            output: { $0.entity }
        )
    }

    /// Creates from a JSON object. Without an `"id"`, an entity whose id is a `String` or a `UUID`
    /// gets a new UUID id before anything is sent, so the server and the local copy name it alike
    /// (and a create retried after a lost answer names the same object); other ids are left to
    /// the server. The remote create carries an `Idempotency-Key` that a fallback keeps, as in
    /// `create(_:)` of an entity.
    ///
    /// A local create (offline, or a local-first rule) of an entity whose `Int` or `Int64` id the
    /// server assigns is stored under a ``TemporaryID`` (a negative number), which is never sent:
    /// once delivered, the entity moves to the server's id (``serverID(of:)``).
    public func create(_ dictionary: JSONObject) -> Promise<Sourced<Entity>> {
        var object = dictionary
        if object["id"] == nil || object["id"] == .null {
            if Entity.ID.self == String.self || Entity.ID.self == UUID.self {
                object["id"] = .string(UUID.randomV4().uuidString)
            } else {
                object["id"] = nil
            }
        }
        let body = object
        let idempotencyKey = UUID.randomV4().uuidString
        let (local, writes, remote, outbox) = (self.local, outboxLocal, self.remote, outboxEngineLater)
        // An object the entity cannot be read from (the server fills in what it leaves out) has
        // no local write: it goes directly.
        if let recorded = Self.temporarilyNamed(body), let id = MovedIDs.idText(recorded["id"]),
            (try? JSONMapping.entity(Entity.self, from: .object(recorded), coding: configuration.coding)) != nil,
            let now = sendingNow(
                .create, entityID: id, idempotencyKey: idempotencyKey,
                write: { writes, tx in
                    let entity = try JSONMapping.entity(Entity.self, from: .object(recorded), coding: writes.coding)
                    let created = try writes.create(
                        [entity], idempotencyKey: idempotencyKey, madeIDs: recorded["id"] != body["id"], in: tx)[0]
                    // The object as the app gave it goes, keys the entity does not model too.
                    let collection = writes.collection
                    if var entry = try tx.outboxEntries(collection: collection, entityID: id).last(where: {
                        $0.idempotencyKey == idempotencyKey
                    }) {
                        entry.payload = .object(remote.applyingNilEncoding(recorded))
                        try tx.replaceOutbox(entry)
                    }
                    return created
                },
                answer: { answer, recorded in try Self.answered(answer, coding: writes.coding) ?? recorded.value })
        {
            return now
        }
        return run(
            .create,
            remote: {
                // An entity named by its id may have earlier offline writes: they go first.
                if let id = MovedIDs.idText(body["id"]) { try await Self.forwardEarlier(id, outbox()) }
                return try await remote.createAnswer(
                    body: remote.applyingNilEncoding(body), keepJSON: true, idempotencyKey: idempotencyKey
                ).value
            },
            local: { sentFirst in
                var body = body
                let madeID = body["id"] == nil
                if madeID {
                    // The server assigns the id: a temporary one stands for it until then.
                    guard let temporary = TemporaryID.make(Entity.ID.self) else {
                        throw DepotError(
                            .invalidRequest,
                            "a local create of \(Entity.self) needs an \"id\": Depot makes no temporary \(Entity.ID.self) id"
                        )
                    }
                    let text = temporary.pathComponent
                    body["id"] = Int64(text).map(JSON.integer) ?? .string(text)
                }
                let entity = try JSONMapping.entity(Entity.self, from: .object(body), coding: writes.coding)
                return RemoteAnswer(
                    entity: try await writes.create(
                        entity, idempotencyKey: sentFirst ? idempotencyKey : nil, madeID: madeID))
            },
            afterRemote: { try await local.storeWriteAnswer($0) },
            afterLocal: { try await Self.forward($0.entity.id.pathComponent, outbox(), handingOff: true) },
            output: { $0.entity }
        )
    }

    /// Replaces the entity (PUT). Sends `If-Match` with the stored strong `ETag` (see
    /// ``RepositoryConfiguration/conditionalWrites``). A local update is stored unsynced and
    /// recorded in the outbox; a remote one first sends the entity's earlier outbox entries (when
    /// they cannot all go, a rule falling back to `.local` records it behind them, answered with
    /// origin `.local` and ``Sourced/fallbackError`` `.queuedBehindEarlierWrites`), and carries an
    /// `Idempotency-Key` that a fallback keeps, as `create(_:)` of an entity does.
    public func update(_ entity: Entity) -> Promise<Sourced<Entity>> {
        let (local, writes, remote, outbox, key) = (
            self.local, outboxLocal, self.remote, outboxEngineLater, entity.id.pathComponent
        )
        if let refusal = Self.refusingEmpty(key) { return Promise(error: refusal) }
        let idempotencyKey = UUID.randomV4().uuidString
        if let now = sendingNow(
            .update, entityID: key, idempotencyKey: idempotencyKey,
            write: { writes, tx in try writes.update([entity], idempotencyKey: idempotencyKey, in: tx)[0] },
            answer: { answer, recorded in try Self.answered(answer, coding: writes.coding) ?? recorded.value })
        {
            return now
        }
        return run(
            .update,
            remote: {
                // The entity's earlier writes go first; an id the server replaced (by now, or by
                // their answers) is where the write goes: it is built after they were delivered.
                try await Self.forwardEarlier(try await local.following(entity).id.pathComponent, outbox())
                let entity = try await local.following(entity)
                let key = entity.id.pathComponent
                try await local.refuseMadeID(key)
                let record = try await local.anyRecord(id: key)
                let base = record?.snapshot.map(JSON.object)
                return try await remote.updateAnswer(
                    entity, ifMatch: try await remote.ifMatch(record?.etag, id: key, base: base), keepJSON: true,
                    idempotencyKey: idempotencyKey, base: base
                ).value
            },
            local: { sentFirst in
                RemoteAnswer(entity: try await writes.update(entity, idempotencyKey: sentFirst ? idempotencyKey : nil))
            },
            afterRemote: { try await local.storeWriteAnswer($0) },
            afterLocal: { try await Self.forward($0.entity.id.pathComponent, outbox(), handingOff: true) },
            output: { $0.entity }
        )
    }

    /// Deletes the entity.
    public func delete(_ entity: Entity) -> Promise<Sourced<Void>> { delete(id: entity.id) }

    /// Deletes the entity with `id`; a local delete leaves a tombstone and an outbox entry until the
    /// server has it. Sends `If-Match` like ``update(_:)``.
    public func delete(id: Entity.ID) -> Promise<Sourced<Void>> {
        let (local, writes, remote, outbox, key) = (
            self.local, outboxLocal, self.remote, outboxEngineLater, id.pathComponent
        )
        if let refusal = Self.refusingEmpty(key) { return Promise(error: refusal) }
        let idempotencyKey = UUID.randomV4().uuidString
        if let now = sendingNow(
            .delete, entityID: key, idempotencyKey: idempotencyKey,
            write: { writes, tx in try writes.delete(ids: [key], idempotencyKey: idempotencyKey, in: tx) },
            answer: { _, _ in () })
        {
            return now
        }
        // A write's answer for the entity stored while the DELETE is out (it was created again)
        // is newer than the delete's.
        let (storage, sends, collection) = (self.storage, DeliveryLog.Scope(), self.collection)
        return run(
            .delete,
            remote: {
                // The entity's earlier writes go first; an id the server replaced (by now, or by
                // their answers) is where the delete goes: it is built after they were delivered.
                try await Self.forwardEarlier(try await local.moved(id: key)?.id ?? key, outbox())
                let key = try await local.moved(id: key)?.id ?? key
                // An id Depot made that the server never replaced: its create never reached the
                // server (cancelled by an earlier delete, or discarded), which cannot know the id.
                if try await storage.transaction({ tx in try tx.isTemporaryID(collection: collection, id: key) }) {
                    throw DepotError(
                        .notFound,
                        "\(collection) \(key) is an id Depot made for a create the server never received: nothing to delete there"
                    )
                }
                let record = try await local.anyRecord(id: key)
                await sends.begin(storage)
                let base = record?.snapshot.map(JSON.object)
                let ifMatch = try await remote.ifMatch(record?.etag, id: key, base: base)
                try await remote.deleteAnswer(id: key, ifMatch: ifMatch, idempotencyKey: idempotencyKey, base: base)
                    .value
                return key
            },
            local: { sentFirst in
                try await writes.delete(id: key, idempotencyKey: sentFirst ? idempotencyKey : nil)
                return try await local.moved(id: key)?.id ?? key
            },
            afterRemote: { (sentID: String) in try await local.storeDeleteAnswer(sentID: sentID, since: sends.current)
            },
            afterLocal: { (sentID: String) in try await Self.forward(sentID, outbox(), handingOff: true) },
            output: { _ in () }
        )
    }

    /// `body` named by a ``TemporaryID`` when it names no entity (the server assigns its id),
    /// so its local write and outbox entry have an id; nil when Depot makes no temporary id of
    /// this type.
    static func temporarilyNamed(_ body: JSONObject) -> JSONObject? {
        guard body["id"] == nil else { return body }
        guard let temporary = TemporaryID.make(Entity.ID.self) else { return nil }
        var named = body
        let text = temporary.pathComponent
        named["id"] = Int64(text).map(JSON.integer) ?? .string(text)
        return named
    }

    /// The entity a delivered write's answer holds; nil for no answer.
    static func answered(_ answer: OutboxChannel.Answer?, coding: EntityCoding) throws -> Entity? {
        try answer.map { try JSONMapping.entity(Entity.self, from: .object($0.json), coding: coding) }
    }

    /// `.invalidRequest` for an empty id, refused before the store or the outbox sees the write: its
    /// request would address the whole collection (see ``Route``).
    static func refusingEmpty(_ key: String) -> DepotError? {
        key.isEmpty ? DepotError(.invalidRequest, "an empty id would address the whole collection") : nil
    }

    /// Sends the entity's outbox entries now (a synchronizing local-first write). With
    /// `handingOff`, when a forwarder of this process is running on the storage, the send is left
    /// to it (the write already woke it): one sender, no race for the lease; its events report it.
    ///
    /// With `answerOf`, returns what became of that entry in this send.
    ///
    /// - Throws: what kept an entry from going through: the retry's error, or the refusal.
    @discardableResult
    static func forward(
        _ id: String, _ outbox: OutboxEngine, handingOff: Bool = false, answerOf carrier: Int64? = nil
    ) async throws -> CarriedAnswer {
        if handingOff, OutboxCoordinator.hasRunningForwarder(outbox.storage) { return .notDelivered }
        let report = try await outbox.deliver(
            collection: outbox.channels.keys.first ?? "", entityID: id, answerOf: carrier)
        if let error = report.errors.first { throw error }
        if let refused = report.rejected.first, let rejection = refused.rejection { throw rejection.error() }
        return report.answer
    }

    /// Before a remote write: the entity's earlier offline writes go first, so the server sees the
    /// writes in the order they were made. When they cannot all go now (the server fails, one was
    /// refused and moved aside, a forwarder holds them), throws `.queuedBehindEarlierWrites`: a
    /// rule with a local fallback then records this write in the outbox behind them, and the
    /// forwarder delivers them all in order (a refused one once the app retries it).
    ///
    /// An earlier write the server refused with a 404 says the entity is gone there (deleted, by
    /// this app or another client): this write could never follow it, so it is refused at once
    /// with `.notFound`, nothing stored or queued, as it would be with no earlier write. A write
    /// folded into an earlier entry never sent goes as that entry, and fails so when it is refused.
    /// The entries left are looked for where the entity lives once the earlier writes went: under
    /// the server's id when a create among them was answered with one.
    ///
    /// `answerOf` is the earlier entry a write folded into (it carries that write): its answer is
    /// returned when it was delivered.
    ///
    /// - Throws: `.notFound`, `.queuedBehindEarlierWrites` (with what kept them back as its
    ///   underlying error), or the store's error, or `.cancelled`.
    @discardableResult
    static func forwardEarlier(
        _ id: String, _ outbox: OutboxEngine, answerOf carrier: Int64? = nil
    ) async throws -> CarriedAnswer {
        let entries = OutboxQuery(collections: Set(outbox.channels.keys), entityID: id, selection: .all)
        guard try await outbox.storage.outboxCount(entries) > 0 else { return .notDelivered }
        var reason: DepotError?
        var carried = CarriedAnswer.notDelivered
        do {
            carried = try await forward(id, outbox, answerOf: carrier)
        } catch let error as DepotError where !error.isCancellation && error.code != .storage {
            reason = error
        }
        // What is left is the entity's chain where the entity lives now: a create among the earlier
        // writes, answered with the server's id, moved the entity and its entries there (the move
        // recorded with its answer). Looked for under `id` alone, a refusal after the move went
        // unseen, and a write folded into the refused entry was answered as delivered.
        let collection = outbox.channels.keys.first ?? ""
        let current = try await outbox.storage.transaction { tx in
            try tx.fetch(collection: collection, id: id) == nil ? try tx.currentID(collection: collection, id: id) : nil
        }
        let left = try await outbox.storage.outbox(
            current.map { OutboxQuery(collections: Set(outbox.channels.keys), entityID: $0.id, selection: .all) }
                ?? entries)
        if let gone = left.lazy.compactMap(\.rejection).first(where: { $0.status == 404 }) {
            throw gone.error(prefix: "\(id) is gone from the server (an earlier write to it was refused): ")
        }
        if !left.isEmpty {
            throw DepotError(
                .queuedBehindEarlierWrites,
                "\(left.count) earlier write(s) to \(id) wait in the outbox; this one goes behind them",
                underlying: reason)
        }
        return carried
    }
}
