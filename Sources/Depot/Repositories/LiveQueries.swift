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
    /// A record is read as every local read reads it: a stored copy the model cannot read (written
    /// by another version of the app) is read from the record's server snapshot with its pending
    /// change on top; a record that cannot be read either way is left out. A read that fails is
    /// tried again at the next change.
    public func observe(_ criteria: Criteria = Criteria()) -> AsyncStream<[Entity]> {
        let (storage, collection, local) = (self.storage, self.collection, self.local)
        return Self.live(storage: storage, collection: collection) {
            let records = try await storage.fetch(collection: collection, matching: criteria)
            return records.compactMap { try? local.decoded($0) }
        }
    }

    /// The local record with `id`, as an entity: its current value first (nil when there is none,
    /// once it is deleted, or when it cannot be read, as `observe(_:)` reads it), then a new one
    /// after every committed write to the collection.
    public func observe(id: Entity.ID) -> AsyncStream<Entity?> {
        let (storage, collection, key, local) = (self.storage, self.collection, id.pathComponent, self.local)
        return Self.live(storage: storage, collection: collection) {
            guard let record = try await storage.fetch(collection: collection, id: key),
                record.syncState != .deleted
            else { return nil }
            return try? local.decoded(record)  // documented: a record that cannot be read is left out
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
