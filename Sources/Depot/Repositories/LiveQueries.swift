import Foundation

extension CRUDNetworkingStorageRepository {
    /// The local records matching `criteria`, as entities: the current result first, then a new
    /// one after every committed write to the collection through this storage object (local
    /// writes, pull pages, forwarder answers, other repositories on it). Bursts coalesce: a slow
    /// consumer sees the latest result, never a backlog. Ending the consuming task ends the
    /// observation.
    ///
    /// ```swift
    /// for await notes in cached.observe(Criteria(["author": "ann"])) { render(notes) }
    /// ```
    ///
    /// A record that cannot be read as an entity is left out; a read that fails is tried again at
    /// the next change.
    public func observe(_ criteria: Criteria = Criteria()) -> AsyncStream<[Entity]> {
        let (storage, collection) = (self.storage, self.collection)
        return Self.live(storage: storage, collection: collection) {
            let records = try await storage.fetch(collection: collection, matching: criteria)
            return records.compactMap { Self.decodedEntity($0) }
        }
    }

    /// The local record with `id`, as an entity: its current value first (nil when there is none,
    /// or once it is deleted), then a new one after every committed write to the collection.
    public func observe(id: Entity.ID) -> AsyncStream<Entity?> {
        let (storage, collection, key) = (self.storage, self.collection, id.pathComponent)
        return Self.live(storage: storage, collection: collection) {
            guard let record = try await storage.fetch(collection: collection, id: key),
                record.syncState != .deleted
            else { return nil }
            return Self.decodedEntity(record)
        }
    }

    private static func decodedEntity(_ record: StoredRecord) -> Entity? {
        do {
            return try JSONMapping.entity(Entity.self, from: .object(record.object))
        } catch {
            return nil  // documented: a record that cannot be read is left out
        }
    }

    /// Runs `read` now and after every change to `collection`, yielding the newest result.
    static func live<Value: Sendable>(
        storage: Storage, collection: String, read: @escaping @Sendable () async throws -> Value
    ) -> AsyncStream<Value> {
        // Subscribed before the first read, so no write between the two is missed.
        let ticks = storage.ticks(collection: collection, outbox: false)
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            if let value = try? await read() { continuation.yield(value) }  // a failed read waits for the next change
            for await _ in ticks {
                if let value = try? await read() { continuation.yield(value) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension Forwarder {
    /// ``pendingCount`` now, then again after every committed write that touches the outbox (of
    /// this storage object): "3 changes waiting". Bursts coalesce; ending the consuming task ends
    /// it.
    public var pendingCounts: AsyncStream<Int> {
        let ticks = storage.ticks(collection: nil, outbox: true)
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task { [weak self] in
            guard let first = await self?.pendingCount else { return continuation.finish() }
            continuation.yield(first)
            for await _ in ticks {
                guard let count = await self?.pendingCount else { break }
                continuation.yield(count)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
