import Depot
import DepotSQLite
import DepotTesting
import Foundation

/// How one step's call ended.
enum CheckAnswer: Sendable {
    /// An entity (create, update, patch, read) or none (delete), and who answered.
    case one(CheckItem?, Origin)
    /// A list, and who answered.
    case list([CheckItem], Origin)
    /// A synchronization or a flush.
    case done
    /// A synchronization's report, and how many list answers holding objects the server gave
    /// under ``CheckServerShape/silentPages`` while it ran.
    case synchronized(SynchronizationReport, silentPagesFilled: Int)
    /// A failure, with its code (`notFound`, `transport`, …).
    case failed(String)
}

/// The app a ``CheckRunner`` drives: sessions per account, the store, a forwarder that is not
/// started (the program flushes), and the entities it holds. Used from one task only.
final class CheckApp {
    let program: CheckProgram
    let stub: StubServer
    let server: CheckServer
    let path: String
    var storage: Storage
    var forwarder: Forwarder
    /// The second replica on the same SQLite file (rounds with ``CheckServerShape/replica``).
    let replicaStorage: Storage?
    let replicaForwarder: Forwarder?
    /// Each account's session, its calls timed (``calls``).
    let sessions: [String: any Networking]
    /// When each call of the sessions began and ended (judged by ``judgeDeadlines(step:_:)``).
    let calls = CheckTimedNetworking.Log()
    /// Every conflict the app's conflict policy decided, on every road (judged by ``refused(_:)``).
    let conflicts: CheckConflicts
    /// The other origin detail GETs are redirected to (``CheckServerShape/redirectsElsewhere``).
    let mirror: StubServer?
    /// Each account's interceptor (rounds whose tokens expire).
    let authentications: [String: AuthenticationInterceptor<String>]
    /// The account signed in now, the last step's (``CheckServerShape/declaresAccounts``).
    let signedIn = LockedValue("A")
    /// The session the forwarder and the final pull send through: the signed-in account's
    /// (``CheckSignedIn``) in rounds whose sessions declare their account, else A's.
    let outbox: any Networking
    /// The account each app write (by value) was made as (`A` for the replica's), judged against
    /// the account the server applied it under (`WRONG ACCOUNT`).
    var madeAs: [String: String] = [:]
    /// The client's timeout.
    let timeout: Duration
    /// The last answer the app got for each handle.
    var held: [Int: CheckItem] = [:]
    /// The `viewer` the entity of each app write (by value) carried: the held one for an update or
    /// a patch, none for a create.
    var carried: [String: String?] = [:]
    var model = CheckModel()
    var offline = false
    /// Whether the step being judged ran beside another call: a read then may answer a state from
    /// before the other call's write (it may be ordered first), so its answer is not judged.
    var concurrent = false
    /// The app's schema version (2 after ``CheckAction/migrate``).
    var schemaVersion = 1
    /// The lists and their children (rounds with ``CheckServerShape/childCollection``).
    var family: CheckFamily?

    /// Opens the shared store again (a restart, the replica) when it is not an SQLite file: the
    /// round's ``CheckStore``, with the names of the stores opened so far to close.
    let store: CheckStore?
    var opened: [Storage] = []

    init(
        program: CheckProgram, stub: StubServer, path: String, store: CheckStore? = nil, mirror: StubServer? = nil
    ) async throws {
        self.program = program
        self.store = store
        self.stub = stub
        self.path = path
        self.mirror = mirror
        server = CheckServer(shape: program.shape, on: stub, mirror: mirror)
        let timeout = program.shape.timeout
        self.timeout = timeout
        let made = Self.sessions(shape: program.shape, url: stub.url, timeout: timeout, calls: calls)
        sessions = made.sessions
        authentications = made.authentications
        let outbox: any Networking =
            program.shape.declaresAccounts && program.shape.refreshesTokens
            ? CheckSignedIn(sessions: made.sessions, current: signedIn) : made.sessions["A"]!
        self.outbox = outbox
        let conflicts = CheckConflicts()
        self.conflicts = conflicts
        if program.shape.sqlite, let store {
            storage = try await store.open(path)
            opened.append(storage)
        } else {
            storage = program.shape.sqlite ? try SQLiteStorage(path: path) : InMemoryStorage()
        }
        forwarder = Self.forwarder(storage: storage, session: outbox, shape: program.shape, conflicts: conflicts)
        if program.shape.replica, program.shape.sqlite {
            let replica = try await store?.open(path) ?? SQLiteStorage(path: path)
            if store != nil { opened.append(replica) }
            replicaStorage = replica
            replicaForwarder = Self.forwarder(
                storage: replica, session: made.sessions["A"]!, shape: program.shape, conflicts: conflicts, fast: true)
        } else {
            replicaStorage = nil
            replicaForwarder = nil
        }
        if program.shape.childCollection { family = CheckFamily(stub: stub, timeout: timeout) }
    }

    /// A forwarder over `storage` (the replica's: its clock 30 s fast); leases last 2 s in rounds
    /// with a replica (renewed while a request is out), else 60 s.
    static func forwarder(
        storage: Storage, session: Networking, shape: CheckServerShape, conflicts: CheckConflicts, fast: Bool = false
    ) -> Forwarder {
        let items = CheckItems(
            store: session, storage: storage, strategy: .localFirst, batch: shape.batchRoute,
            assignsIDs: shape.assignsIDs, pageSize: shape.pageSize, incremental: shape.incremental,
            clientWins: shape.clientWins, declaresServerKeys: shape.declaresServerKeys, linkPaging: shape.linkPaging,
            declaresAPIKey: shape.redirectsElsewhere, conflicts: conflicts, silentPages: shape.silentPages)
        return Forwarder(
            for: items,
            configuration: ForwarderConfiguration(
                baseDelay: .milliseconds(5), maximumDelay: .milliseconds(20), pollInterval: .milliseconds(200),
                leaseDuration: shape.replica ? .seconds(2) : .seconds(60),
                clock: fast ? FastClock() as any ForwarderClock : SystemForwarderClock()))
    }

    func items(_ strategy: CheckStrategy, as account: String) -> CheckItems {
        let rule: Strategy =
            switch strategy {
            case .remoteFirst: .remoteFirst
            case .localFirst: .localFirst
            case .cacheFirst: .cacheFirst
            case .staleWhileRevalidate: .staleWhileRevalidate
            case .recordOnly: Strategy(Rule(target: .local, synchronize: false))
            }
        let onReplica = account == "R" && replicaStorage != nil
        return CheckItems(
            store: sessions[account == "R" ? "A" : account]!, storage: onReplica ? replicaStorage! : storage,
            strategy: rule, batch: program.shape.batchRoute,
            assignsIDs: program.shape.assignsIDs, pageSize: program.shape.pageSize,
            // (Under silent pages the app's pulls prune: a pull that took page 1 for the whole
            // list would remove what the later pages hold.)
            prune: program.shape.silentPages,
            incremental: program.shape.incremental, clientWins: program.shape.clientWins,
            declaresServerKeys: program.shape.declaresServerKeys, linkPaging: program.shape.linkPaging,
            declaresAPIKey: program.shape.redirectsElsewhere, conflicts: conflicts,
            silentPages: program.shape.silentPages)
    }

    /// The id a create of `handle` sends.
    func createdID(_ handle: Int) -> String {
        if program.shape.assignsIDs { return "tmp-\(handle)" }
        // A UUID with letters in it, as `UUID().uuidString` spells it (uppercase).
        if program.shape.lowercaseIDs { return "ABCDEF00-0000-4000-8000-" + String(format: "%012X", 0xABC000 + handle) }
        if program.shape.localSpelledIDs { return "local-\(handle)" }
        return "i\(handle)"
    }

    /// The server object of `handle`: the one holding a value written to it.
    func serverObject(_ handle: Int) -> CheckServer.Object? {
        server.objects.first { model.owner(of: $0.value) == handle }
    }

    // MARK: Steps

    /// The most requests one step may send (pages, retries, refreshes and the entries a flush
    /// sends included): far above what any step of a program needs, far below a loop's.
    static let requestsPerStep = 150

    func runSteps(_ outcome: inout CheckRunner.Outcome) async {
        for (index, step) in program.steps.enumerated() {
            let began = ContinuousClock.now
            let requests = stub.requests.count
            let line = await run(step, index: index, outcome: &outcome)
            // No loops: a step's requests are bounded whatever the server answers (issue 42 #5:
            // a write re-queued after each answer sent 3,000 POSTs in 20 s).
            let sent = stub.requests.count - requests
            if sent > Self.requestsPerStep {
                outcome.violations.append(
                    CheckViolation(
                        kind: "LOOP", step: index,
                        message:
                            "one step sent \(sent) requests; no step of a program needs more than \(Self.requestsPerStep)"
                    ))
            }
            let took = (ContinuousClock.now - began).components
            let milliseconds = took.seconds * 1_000 + took.attoseconds / 1_000_000_000_000_000
            let call = CheckRender.call(step, shape: program.shape).replacingOccurrences(of: "\n", with: " ")
            outcome.log.append("\(index): \(call) → \(line) [\(milliseconds) ms]")
            judgeDeadlines(step: index, &outcome)
            judgeSenders(step: index, &outcome)
            if outcome.violations.contains(where: { $0.kind == "HANG" }) { return }
            await judgeOrphans(after: index, &outcome)
        }
    }

    /// Between steps (no call of the app under way), the store's records agree with their queued
    /// writes: every record with a change the server does not have yet (created, updated, deleted)
    /// has an outbox entry that sends it (`ORPHAN`: a change no road will ever send, shown to the
    /// app as pending for good), and a record whose last queued write is a delete is deleted, one
    /// whose last queued write makes or changes it is not (`STATE`: the app is shown the opposite
    /// of what will be sent). Entities with a refused entry are left to the app.
    func judgeOrphans(after index: Int, _ outcome: inout CheckRunner.Outcome) async {
        guard let (entries, records) = await Self.contents(of: storage) else { return }
        let queued = Dictionary(grouping: entries, by: \.entityID)
        for record in records {
            let value = record.object["value"]?.stringValue ?? "-"
            let said = "the store holds \(record.id)=\(value) (\(record.syncState))"
            guard let writes = queued[record.id] else {
                if record.syncState != .synced {
                    outcome.violations.append(
                        CheckViolation(kind: "ORPHAN", step: index, message: "\(said) with no outbox entry to send it"))
                }
                continue
            }
            guard !writes.contains(where: { $0.rejection != nil }), let last = writes.last else { continue }
            if (last.operation == .delete) != (record.syncState == .deleted) || record.syncState == .synced {
                outcome.violations.append(
                    CheckViolation(
                        kind: "STATE", step: index,
                        message: "\(said), its last queued write a \(last.operation)"))
            }
        }
    }

    func inject(_ fault: CheckFault?) {
        switch fault {
        case nil: return
        case .applyThenDrop: stub.inject(.applyThenDropConnection)
        case .applyThenGoOffline: stub.inject(.applyThenGoOffline)
        case .drop: stub.inject(.dropConnection)
        case .unavailable: stub.inject(.status(503, headers: ["Retry-After": "0"]))
        case .serverError: stub.inject(.status(500))
        case .pastTimeout: stub.inject(.delay(timeout + .milliseconds(300)))
        case .slowAnswer: server.slowNextWrite(timeout + .milliseconds(400))
        case .trickle: server.trickleNext()
        case .cancel: stub.inject(.delay(.milliseconds(300)))
        case .dieMidResponse: stub.inject(.dieMidResponse)
        case .secondGoesOffline:
            stub.inject(.delay(.zero))
            stub.inject(.applyThenGoOffline)
        }
    }

    /// Clears what faults are left after `step`'s call, and brings the server back if its fault
    /// took it away (the program did not).
    func clearFaults(after step: CheckStep) async {
        stub.clearFaults()
        if step.fault == .applyThenGoOffline || step.fault == .secondGoesOffline, !offline {
            try? await stub.goOnline()
        }
    }

    /// Runs one step; returns its log words.
    func run(_ step: CheckStep, index: Int, outcome: inout CheckRunner.Outcome) async -> String {
        switch step.action {
        case .offline:
            offline = true
            try? await stub.goOffline()
            return "offline"
        case .online:
            offline = false
            try? await stub.goOnline()
            return "online"
        case .otherWrite(let handle, let value):
            guard let object = serverObject(handle) else { return "skipped: no server object" }
            model.other(handle, state: value)
            server.otherWrite(id: object.id, value: value)
            return "other client wrote \(object.id)"
        case .otherDelete(let handle):
            guard let object = serverObject(handle) else { return "skipped: no server object" }
            model.other(handle, state: nil)
            server.otherWrite(id: object.id, value: nil)
            return "other client deleted \(object.id)"
        case .otherCorrupt(let handle):
            guard let object = serverObject(handle) else { return "skipped: no server object" }
            // Its value names the entity, so another client can make it readable again later (the
            // quarantined row released, not re-merged over the newer value).
            model.began(handle, state: "x\(index)")
            model.corrupted(handle)
            server.otherWrite(id: object.id, value: "x\(index)", corrupt: true)
            return "other client wrote an unreadable \(object.id)"
        case .expireToken(let account):
            server.expireToken(of: account)
            return "\(account)'s token expired"
        case .logout(let account):
            guard let authentication = authentications[account] else { return "skipped: no interceptor" }
            server.signedOut(account, true)
            // An app that declares accounts names one on every update, a logout's included.
            authentication.update(credential: nil, account: declaredAccount(account))
            return "\(account) signed out"
        case .signIn(let account):
            guard let authentication = authentications[account] else { return "skipped: no interceptor" }
            authentication.update(credential: server.token(of: account), account: declaredAccount(account))
            server.signedOut(account, false)
            // Signing in switches the app to the account (rounds whose sessions declare theirs).
            if program.shape.declaresAccounts { signedIn.withLock { $0 = account } }
            return "\(account) signed in"
        case .both(let first, let second):
            // Both run as the step's parts, judged as concurrent as the step is.
            let wasConcurrent = concurrent
            var part = step
            part.action = first
            let one = await run(part, index: index, outcome: &outcome)
            concurrent = wasConcurrent
            part.action = second
            let two = await run(part, index: index, outcome: &outcome)
            concurrent = wasConcurrent
            return one + "; " + two
        case .migrate:
            return await migrate(index: index, outcome: &outcome)
        case .leasesLapse:
            var lapsed = 0
            for store in [storage, replicaStorage].compactMap({ $0 }) {
                guard let count = try? await Self.lapseLeases(in: store) else { return "lapsing the leases failed" }
                lapsed += count
            }
            return "\(lapsed) leases lapsed"
        case .child(let action):
            return await runChild(step, action, index: index, outcome: &outcome)
        case .reread(let handle):
            guard held[handle] != nil else { return "skipped: the app holds no e\(handle)" }
            return await reread(step, handle: handle, index: index, outcome: &outcome)
        case .restart:
            guard program.shape.sqlite else { return "skipped: in memory" }
            do {
                storage = try await store?.open(path) ?? SQLiteStorage(path: path)
                if store != nil { opened.append(storage) }
                forwarder = Self.forwarder(
                    storage: storage, session: outbox, shape: program.shape, conflicts: conflicts)
                return "restarted"
            } catch {
                return "restart failed: \(error)"
            }
        default:
            break
        }
        if case .flush = step.action {
        } else if step.handle.map({ held[$0] == nil }) ?? false, !step.isCreate {
            return "skipped: the app holds no e\(step.handle!)"
        }
        // The app switches to the step's account (A for the replica's) before its call.
        if program.shape.declaresAccounts { signedIn.withLock { $0 = step.account == "B" ? "B" : "A" } }
        if step.during != nil { stub.inject(.delay(.milliseconds(300))) }
        inject(step.fault)
        let written = step.writtenState
        if let handle = step.handle, let written { model.began(handle, state: written) }
        if let handle = step.handle, case .some(.some(let value)) = written {
            carried[value] = .some(step.isCreate ? nil : held[handle]?.viewer)
            madeAs[value] = step.account == "B" ? "B" : "A"
        }
        let call = makeCall(step)
        let refusalsBefore = (server.refusals.count, server.inFlightConflicts)
        let answer: CheckAnswer?
        var meanwhile = ""
        if let during = step.during {
            let requests = stub.requests.count
            // A sign-out or an account switch meant to meet a token refresh waits for the refresh's
            // request (held there).
            let refreshes = server.tokenRequests
            let meetsRefresh = program.shape.refreshesTokens && during.parts.contains { $0.isLogout || $0.isSignIn }
            if meetsRefresh { server.slowNextToken(.milliseconds(300)) }
            let first = Task { await CheckRunner.limited(CheckRunner.stepLimit, call) }
            // Until its first request is at the server (held there 300 ms), or 1 s for a call
            // that sends nothing.
            for _ in 0..<200 where stub.requests.count == requests { try? await Task.sleep(for: .milliseconds(5)) }
            if meetsRefresh {
                for _ in 0..<100 where server.tokenRequests == refreshes {
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            let sent = stub.requests.count > requests
            // Until it is answered, the first call's write may or may not have happened.
            if let handle = step.handle, let written = step.writtenState { model.failed(handle, state: written) }
            var inner = step
            inner.action = during
            inner.during = nil
            inner.fault = nil
            // With a second replica, what runs meanwhile runs on the other one (account A on R, R on A).
            if program.shape.replica, program.shape.sqlite, inner.account != "B" {
                inner.account = inner.account == "R" ? "A" : "R"
            }
            concurrent = true
            let line = await run(inner, index: index, outcome: &outcome)
            concurrent = true  // the inner step's judging reset it
            answer = await first.value
            // Which interleaving this was: the first call's answer came after the second's unless
            // the second outlasted the 300 ms hold.
            meanwhile = " | meanwhile\(sent ? "" : " (after: the first sent nothing)"): \(line)"
        } else if step.fault == .cancel {
            // Cancelled once its first request is at the server (or after 1 s if it sends nothing).
            let requests = stub.requests.count
            let task = Task { await call() }
            for _ in 0..<200 where stub.requests.count == requests { try? await Task.sleep(for: .milliseconds(5)) }
            task.cancel()
            answer = await CheckRunner.limited(CheckRunner.stepLimit) { await task.value }
        } else {
            answer = await CheckRunner.limited(CheckRunner.stepLimit, call)
        }
        await clearFaults(after: step)
        guard let answer else {
            outcome.violations.append(
                CheckViolation(kind: "HANG", step: index, message: "no answer within \(CheckRunner.stepLimit)"))
            return "HANG"
        }
        judge(step, index: index, answer: answer, refusalsBefore: refusalsBefore, outcome: &outcome)
        concurrent = false
        if let during = step.during, let handle = step.handle {
            // Two writes of one entity in flight at once land in either order.
            for part in during.parts {
                var inner = step
                inner.action = part
                if inner.handle == handle, let state = inner.writtenState { model.failed(handle, state: state) }
                if case .otherWrite(handle, let value) = part { model.other(handle, state: value) }
                if case .otherDelete(handle) = part { model.other(handle, state: nil) }
            }
        }
        return CheckRender.words(answer) + meanwhile
    }
}
