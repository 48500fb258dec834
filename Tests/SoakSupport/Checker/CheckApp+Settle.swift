import Depot
import DepotTesting
import Foundation

extension CheckApp {
    /// The final checks: the server online with no faults, the outbox flushed, a full pull (with
    /// prune); then every entity's server state allowed by the model, in one object; no silent
    /// overwrite; the outbox empty or refused; the store holding exactly what the server holds.
    func settle(_ outcome: inout CheckRunner.Outcome) async {
        func flag(_ kind: String, _ message: String) {
            outcome.violations.append(CheckViolation(kind: kind, step: nil, message: message))
        }
        if offline { try? await stub.goOnline() }
        offline = false
        stub.clearFaults()
        server.quiet()
        for (account, authentication) in authentications where authentication.credential == nil {
            authentication.update(credential: server.token(of: account), account: declaredAccount(account))
            server.signedOut(account, false)
        }
        for request in server.afterLogout {
            flag("LOGOUT", "\(request): a request carried the token of an account signed out at the time")
        }
        await settleChildren(&outcome)
        let requests = stub.requests.count
        defer {
            let sent = stub.requests.count - requests
            if sent > 2 * Self.requestsPerStep {
                flag(
                    "LOOP",
                    "the final flushes and pull sent \(sent) requests; they need at most \(2 * Self.requestsPerStep)")
            }
        }
        let forwarder = self.forwarder
        var whole = CheckItems(
            store: outbox, storage: storage, strategy: .remoteFirst, batch: program.shape.batchRoute,
            assignsIDs: program.shape.assignsIDs, pageSize: program.shape.pageSize, prune: true,
            incremental: program.shape.incremental, clientWins: program.shape.clientWins,
            declaresServerKeys: program.shape.declaresServerKeys, linkPaging: program.shape.linkPaging,
            declaresAPIKey: program.shape.redirectsElsewhere, conflicts: conflicts,
            silentPages: program.shape.silentPages)
        if program.shape.silentPages {
            // The server's truth, read whole: it honours `_page`, and with no total the walk ends
            // at a short or empty page.
            whole.synchronization.pagination = .pageQuery(
                page: "_page", limit: "_limit", size: program.shape.pageSize)
        }
        let items = whole
        let storage = self.storage
        let server = self.server
        let incremental = program.shape.incremental
        // Each account signs in in turn, so the entries held for it go (A's last: the pull's).
        let signedIn = self.signedIn
        let accounts = program.shape.declaresAccounts ? ["B", "A"] : ["A"]
        let flushEach: @Sendable () async -> Void = {
            for account in accounts {
                signedIn.withLock { $0 = account }
                _ = try? await forwarder.flush().value
            }
        }
        let settled = await CheckRunner.limited(CheckRunner.stepLimit) {
            // A write the server still processes (its answer held past the client's timeout) is
            // answered first: until then a resend under its key is answered 409, to retry later.
            if let until = server.keysInFlightUntil { try? await Task.sleep(until: until, clock: .continuous) }
            // Errors show below as what is left; a settle step that fails is not itself judged.
            // Patience, bounded: a failed token refresh answers at once for its failure window
            // (1 s), and an entry may wait for its backoff, so flushes go on while entries are
            // pending, up to 3 s and at least 5 flushes (on a loaded machine a flush whose request
            // times out takes most of a second: a wall-clock bound alone left entries pending).
            let patience = ContinuousClock.now + .seconds(3)
            var flushes = 0
            repeat {
                await flushEach()
                flushes += 1
                let pending = (try? await storage.outboxCount(OutboxQuery())) ?? 0
                if pending == 0 || (ContinuousClock.now > patience && flushes >= 5) { break }
                if await Self.waitsOnlyOnTheApp(storage, OutboxQuery()) { break }
                try? await Task.sleep(for: .milliseconds(250))
            } while true
            // The store as the flushes left it, before any pull prunes what no page holds.
            let afterFlushes = await Self.contents(of: storage)
            // A pull that got no page (a failed token refresh answers at once for its failure
            // window, 1 s) is tried again, up to 3 s: the judges below need a pull that happened.
            let pull: @Sendable () async -> Void = {
                let patience = ContinuousClock.now + .seconds(3)
                while true {
                    let report = try? await items.synchronize().value
                    if let report, report.pages > 0 || report.errors.isEmpty { return }
                    if ContinuousClock.now > patience { return }
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
            await pull()
            await flushEach()
            // An incremental pull with nothing pending brings the store to what the server holds,
            // as a full pull does (its cursor moved only past rows it merged).
            if incremental { await pull() }
            let beforeFullPull = incremental ? await Self.contents(of: storage) : nil
            // A full pull (an incremental one prunes nothing), whatever cursor the program left.
            _ = try? await items.resetPullCursor().value
            await pull()
            return (beforeFullPull, afterFlushes)
        }
        judgeDeadlines(step: nil, &outcome)
        judgeSenders(step: nil, &outcome)
        judgeWriteAccounts(&outcome)
        guard let (settled, afterFlushes) = settled else {
            flag("HANG", "the final flush and pull did not end within \(CheckRunner.stepLimit)")
            return
        }
        if let (entries, records) = afterFlushes {
            for message in resurrections(entries: entries, records: records) { flag("RESURRECTED", message) }
        }
        guard let (entries, records) = await Self.contents(of: storage) else {
            flag("STORAGE", "reading the store failed")
            return
        }
        // The incremental pull before the full one: the same comparison, as `CURSOR`.
        if let (entries, records) = settled, entries.allSatisfy({ $0.rejection != nil }) {
            for message in divergences(entries: entries, records: records, incremental: true) {
                flag("CURSOR", "after an incremental pull with nothing pending, " + message)
            }
        }
        for entry in entries where entry.rejection == nil {
            flag(
                "STUCK",
                "outbox entry \(entry.sequence) (\(entry.operation) \(entry.entityID)) still pending: \(entry.lastError ?? "-")"
            )
        }
        // Entities the outbox refused, with the reason (the app can see it): judged only for doubling.
        let refusedIDs = Set(entries.filter { $0.rejection != nil }.map { server.canonical($0.entityID) })
        // An entity's ids: the one it was created under, the one the app holds, and every server id
        // a write of its values went to (a temporary id moves).
        let applied = server.applied
        let rejectedHandles = Set(
            model.entities.keys.filter { handle in
                let ids =
                    [createdID(handle), held[handle]?.id].compactMap { $0 }
                    + applied.filter { model.owner(of: $0.value) == handle }.map(\.id)
                return ids.contains { refusedIDs.contains(server.canonical($0)) }
            })
        let objects = server.objects
        var byHandle: [Int: [CheckServer.Object]] = [:]
        for object in objects {
            if let owner = model.owner(of: object.value) { byHandle[owner, default: []].append(object) }
        }
        for (handle, entity) in model.entities.sorted(by: { $0.key < $1.key }) {
            let held = byHandle[handle] ?? []
            if held.count > 1 {
                flag(
                    "DOUBLED",
                    "e\(handle) is \(held.count) objects on the server: \(held.map { "\($0.id)=\($0.value)" }.joined(separator: ", "))"
                )
            }
            guard let allowed = entity.allowed, !refused(handle), !rejectedHandles.contains(handle) else { continue }
            let state = held.first?.value
            if !allowed.contains(state) {
                let states = allowed.map { $0 ?? "deleted" }.sorted().joined(separator: " or ")
                flag("LOST", "the server holds \(state ?? "no object") for e\(handle); the model allows \(states)")
            }
        }
        // A create the store acknowledged, sent later as an update and refused 404 (a pending
        // create turned into an update by an earlier write's answer, say).
        let refusals = server.refusals
        for (handle, entity) in model.entities.sorted(by: { $0.key < $1.key }) {
            guard let since = entity.createdLocally, case .some(.some(let value)) = entity.last,
                entity.uncertain.isEmpty, entity.otherAfter.isEmpty
            else { continue }
            let ids = Set([createdID(handle), held[handle]?.id].compactMap { $0 }.map(server.canonical))
            for refusal in refusals.dropFirst(since)
            where refusal.status == 404 && (refusal.method == "PUT" || refusal.method == "PATCH")
                && ids.contains(refusal.id) && refusal.value == value
            {
                flag(
                    "CREATE REFUSED",
                    "e\(handle)'s create (acknowledged by the store) went out as \(refusal.method) \(refusal.id) and was refused 404"
                )
            }
        }
        // A create the store acknowledged, refused in the outbox without ever being sent: kept in
        // the chain of an earlier write the server refused 404 (a delete ends a chain; a create
        // after it starts a new one).
        for (handle, entity) in model.entities.sorted(by: { $0.key < $1.key }) {
            guard entity.createdLocally != nil, case .some(.some(let value)) = entity.last,
                entity.uncertain.isEmpty, entity.otherAfter.isEmpty, !refusals.contains(where: { $0.value == value })
            else { continue }
            for entry in entries
            where entry.rejection?.status == 404 && entry.payload?.objectValue?["value"]?.stringValue == value {
                flag(
                    "CREATE REFUSED",
                    "e\(handle)'s create (acknowledged by the store) was refused as \(entry.operation) \(entry.entityID) behind an earlier write's 404, never sent"
                )
            }
        }
        // A write the app never made: its last write of the entity was a delete (nothing of it
        // in doubt, no other client writing it since), yet a write of it was sent and refused.
        for entry in entries where entry.rejection != nil && entry.operation != .delete {
            let value = entry.payload?.objectValue?["value"]?.stringValue
            guard let handle = model.owner(of: value), let entity = model.entities[handle],
                case .some(.none) = entity.last, entity.uncertain.allSatisfy({ $0 == nil }), entity.otherAfter.isEmpty
            else { continue }
            flag(
                "PHANTOM",
                "e\(handle)'s last write was a delete, yet \(entry.operation) \(entry.entityID) (\(value ?? "-")) was sent and refused \(entry.rejection?.status ?? 0)"
            )
        }
        for write in server.applied where write.silentOverwrite {
            flag(
                "OVERWRITE",
                "\(write.method) \(write.id) (\(write.value ?? "delete")) replaced another client's version without If-Match, though the app had its ETag"
            )
        }
        for message in divergences(entries: entries, records: records) { flag("DIVERGED", message) }
        await judgeStoreBounds(flag: flag)
        await judgeStoreSize(flag: flag)
        judgeCredentials(flag: flag)
    }

    /// The outbox and the records of `storage`; nil when reading fails.
    /// Whether no flush can send anything `query` selects, as the outbox records it: every pending
    /// entry waits behind an earlier refused entry of its own entity, which only the app resolves
    /// (retry or discard). The settles stop flushing then instead of running out their patience.
    static func waitsOnlyOnTheApp(_ storage: Storage, _ query: OutboxQuery) async -> Bool {
        var everything = query
        everything.selection = .all
        guard let entries = try? await storage.outbox(everything) else { return false }
        var firstRefusal: [String: Int64] = [:]
        for entry in entries where entry.isRejected {
            let entity = "\(entry.collection)/\(entry.entityID)"
            firstRefusal[entity] = min(firstRefusal[entity] ?? entry.sequence, entry.sequence)
        }
        return entries.allSatisfy { entry in
            guard !entry.isRejected else { return true }
            guard let refusal = firstRefusal["\(entry.collection)/\(entry.entityID)"] else { return false }
            return refusal < entry.sequence
        }
    }

    static func contents(of storage: Storage) async -> ([OutboxEntry], [StoredRecord])? {
        do {
            let entries = try await storage.outbox(OutboxQuery(collections: ["items"], selection: .all))
            let records = try await storage.fetch(
                collection: "items", syncStates: Set(SyncState.allCases), after: nil, limit: 100_000)
            return (entries, records)
        } catch {
            return nil
        }
    }

    /// The records `records` holds synced with nothing queued (`entries`) for them, whose object the
    /// app's own delete removed from the server, as that server's last write to it: an answer
    /// stored after the delete brought them back (fleet crash test on PostgreSQL, seed
    /// 4651685230389486758: an update answered after its entity was deleted, made again and
    /// deleted again). Judged before any pull, which would prune them.
    func resurrections(entries: [OutboxEntry], records: [StoredRecord]) -> [String] {
        let queued = Set(entries.map { server.canonical($0.entityID) })
        var last: [String: CheckServer.Applied] = [:]
        for write in server.applied { last[server.canonical(write.id)] = write }
        let present = Set(server.objects.map(\.id))
        return records.compactMap { record in
            let id = server.canonical(record.id)
            guard record.syncState == .synced, !queued.contains(id), !present.contains(id),
                let write = last[id], write.method == "DELETE", write.account != "other"
            else { return nil }
            let value = record.object["value"]?.stringValue ?? "-"
            return "the store holds \(record.id)=\(value) synced, yet the app's delete of it was applied last"
        }
    }

    /// How the store (`records`, with the outbox `entries`) differs from the server: every server
    /// object in the store, synced, with its value; nothing else in the store.
    /// After an `incremental` pull, a record deleted before the last full pull (which did not prune)
    /// may stay: no page tells its deletion.
    func divergences(entries: [OutboxEntry], records: [StoredRecord], incremental: Bool = false) -> [String] {
        var found: [String] = []
        func flag(_ kind: String, _ message: String) { found.append(message) }
        let objects = server.objects
        let rejected = Set(entries.filter { $0.rejection != nil }.map(\.entityID))
        // Ids compare in the server's one spelling; two local records of one id are a divergence.
        let serverByID = Dictionary(objects.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var local: [String: StoredRecord] = [:]
        for record in records {
            let id = server.canonical(record.id)
            if let other = local[id] {
                flag("DIVERGED", "the store holds \(id) twice, as \(other.id) and \(record.id)")
                continue
            }
            local[id] = record
        }
        for object in objects where !rejected.contains(object.id) && !object.corrupt {
            if let owner = model.owner(of: object.value), refused(owner) { continue }
            guard let record = local[object.id] else {
                flag("DIVERGED", "the server's \(object.id)=\(object.value) is not in the store")
                continue
            }
            let value = record.object["value"]?.stringValue ?? "-"
            if record.syncState != .synced || value != object.value {
                flag(
                    "DIVERGED",
                    "the store holds \(record.id)=\(value) (\(record.syncState)), the server \(object.value)")
            }
        }
        for record in records where serverByID[server.canonical(record.id)] == nil && !rejected.contains(record.id) {
            let value = record.object["value"]?.stringValue
            if let owner = model.owner(of: value), refused(owner) { continue }
            if incremental, server.deletedBeforeFullPull(server.canonical(record.id)) { continue }
            flag("DIVERGED", "the store holds \(record.id)=\(value ?? "-") (\(record.syncState)), not on the server")
        }
        return found
    }
}
