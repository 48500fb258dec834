#if Postgres
    import Depot
    import Foundation
    import PostgresNIO

    // Every commit sends a notice on the schema's channel (inside the transaction, so it is
    // delivered only if the commit happens); every storage object listens on a connection of its
    // own and tells its observers what other objects and processes committed.

    extension PostgresStorage {
        /// The largest notice sent with its ids; a larger one names only its collections (the
        /// server's limit is 8,000 bytes).
        static let noticeLimit = 7000

        /// The channel of this schema's change notices.
        var channel: String { "depot_changes_\(schema)" }

        /// The notice of what `recorder` holds, or nil when the write changed nothing.
        func changeNotice(_ recorder: ChangeRecorder) -> String? {
            changeNotice(recorder.recorded)
        }

        /// The notice of `recorded` (changes per collection, and whether the outbox changed).
        func changeNotice(_ recorded: (changes: [StorageChange], outbox: Bool)) -> String? {
            let (changes, outbox) = recorded
            guard !changes.isEmpty || outbox else { return nil }
            func text(_ withIDs: Bool) -> String {
                let collections: [JSON] = changes.sorted { $0.collection < $1.collection }.map { change in
                    var object: JSONObject = ["n": .string(change.collection)]
                    if withIDs {
                        object["c"] = .array(change.changed.sorted().map(JSON.string))
                        object["d"] = .array(change.deleted.sorted().map(JSON.string))
                        object["x"] = .bool(change.cleared)
                    }
                    return .object(object)
                }
                let notice: JSON = ["s": .string(identity.uuidString), "o": .bool(outbox), "c": .array(collections)]
                return (try? notice.serialized()).map { String(decoding: $0, as: UTF8.self) } ?? ""
            }
            let full = text(true)
            if full.utf8.count <= Self.noticeLimit, !full.isEmpty { return full }
            let coarse = text(false)
            // A write to thousands of collections: the outbox flag and a sender are all that is left.
            if coarse.utf8.count <= Self.noticeLimit, !coarse.isEmpty { return coarse }
            return #"{"s":"\#(identity.uuidString)","o":true,"c":[],"all":true}"#
        }

        /// The notice of one record added or replaced, announced by its own statement.
        func changeNotice(changed collection: String, _ id: String) -> String? {
            changeNotice(([StorageChange(collection: collection, changed: [id])], false))
        }

        /// The notice of an outbox change alone, announced by the statement that made it.
        var outboxNotice: String? { changeNotice(([], true)) }

        /// Tells this object's observers what a notice from another object says.
        func receive(_ payload: String) {
            guard let notice = (try? JSON(parsing: Data(payload.utf8)))?.objectValue,
                notice["s"] != .string(identity.uuidString)
            else { return }
            let recorder = ChangeRecorder()
            if notice["o"] == .bool(true) || notice["all"] == .bool(true) { recorder.outbox() }
            for item in notice["c"]?.arrayValue ?? [] {
                guard let change = item.objectValue, case .string(let collection)? = change["n"] else { continue }
                let changed = change["c"]?.arrayValue ?? []
                let deleted = change["d"]?.arrayValue ?? []
                for case .string(let id) in changed { recorder.changed(collection, id) }
                for case .string(let id) in deleted { recorder.deleted(collection, id) }
                if change["x"] == .bool(true) || change["c"] == nil {
                    // A cleared collection, or a coarse notice without ids: the collection changed.
                    recorder.cleared(collection)
                }
            }
            recorder.publish(for: self)
            // Another replica's outbox write: wake this process's forwarders on this object.
            if recorder.recorded.outbox { OutboxCoordinator.notify(self) }
        }

        /// Tells this object's observers that anything may have changed while it was not
        /// listening (notices sent meanwhile are lost): the outbox, and every collection the store
        /// holds, cleared, so live queries and `changes(collection:)` read again.
        func changedWhileNotListening() async {
            let recorder = ChangeRecorder()
            recorder.outbox()
            let collections =
                (try? await rows(
                    "list the collections", "SELECT DISTINCT collection FROM \(unescaped: quoted).records")) ?? []
            for row in collections {
                if let collection = try? row.decode(String.self) { recorder.cleared(collection) }
            }
            recorder.publish(for: self)
            OutboxCoordinator.notify(self)
        }

        /// Starts listening on a connection of the pool held for this object's life; returns once
        /// the server listens, so a write committed after it is seen. If the connection drops,
        /// it listens again on another.
        func startListening() async throws {
            let (ready, readyContinuation) = AsyncStream.makeStream(of: (any Error)?.self)
            let task = Task { [self] in
                // Until the server first listens (the lease runs on a task of its own).
                let first = LockedValue(true)
                while !Task.isCancelled {
                    do {
                        try await leasing("cannot listen for changes on \(channel)") { connection in
                            // The fact that this process lives, held as long as the connection.
                            try await holdOwnerLock(on: connection)
                            // Which server process listens: a fact the tests end it by.
                            let backend = try await connection.query("SELECT pg_backend_pid()", logger: logger).get()
                                .rows.first?.decode(Int32.self)
                            defer { listenerBackend.withLock { $0 = nil } }
                            try await connection.listen(on: channel) { notices in
                                listenerBackend.withLock { $0 = backend }
                                let wasFirst = first.withLock { first in
                                    defer { first = false }
                                    return first
                                }
                                if wasFirst {
                                    readyContinuation.yield(nil)
                                } else {
                                    // Listening again after a lost connection: notices sent
                                    // meanwhile are gone, so every collection may have changed.
                                    Task { await changedWhileNotListening() }
                                }
                                for try await notice in notices { receive(notice.payload) }
                            }
                        }
                    } catch {
                        if first.withLock({ $0 }) {
                            readyContinuation.yield(error)
                            return
                        }
                        logger.warning("Depot's change feed lost its connection: \(error)")
                    }
                    if Task.isCancelled { return }
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            listenerTask.withLock { $0 = task }
            for await failure in ready {
                if let failure {
                    throw Self.wrap(failure, "cannot listen for changes on \(channel)")
                }
                return
            }
        }
    }
#endif
