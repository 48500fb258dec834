import Foundation

/// What one step of a checker program does. Entities are named by handle (`e3`): the app holds the
/// last answer it got for each, as an app holds the objects it shows.
public enum CheckAction: Sendable, Hashable {
    /// `create(CheckItem(id: "i3" or "tmp-3", value:))`.
    case create(handle: Int, value: String)
    /// `update(held with value)`.
    case update(handle: Int, value: String)
    /// `patch(held with value)`.
    case patch(handle: Int, value: String)
    /// `delete(id: held.id)`.
    case delete(handle: Int)
    /// `read(held.id)`.
    case read(handle: Int)
    /// `read(held.id)` by version 2 of the app (``CheckItemV2``: a new required field the server
    /// always sent), on the same store.
    case readV2(handle: Int)
    /// `readAll()`.
    case readAll
    /// `readAll(query: ["kind": "item"])`: a filtered list (every object matches), cached under a
    /// URL of its own.
    case readQuery
    /// `synchronize()`.
    case synchronize
    /// `forwarder.flush()`.
    case flush
    /// Another client writes the entity's server object.
    case otherWrite(handle: Int, value: String)
    /// Another client deletes the entity's server object.
    case otherDelete(handle: Int)
    /// Another client writes a value the app cannot read (a number where a string belongs).
    case otherCorrupt(handle: Int)
    /// `create` again under the entity's first id (after a delete: the app re-creates it).
    case recreate(handle: Int, value: String)
    /// `create(["id": …, "value": value])` again under the entity's first id: the JSON-object
    /// create (its earlier entries must go first as an entity's do).
    case recreateJSON(handle: Int, value: String)
    /// The server stops listening.
    case offline
    /// The server listens again.
    case online
    /// The app quits and starts again on the same SQLite file (nothing in memory survives).
    case restart
    /// The server expires the account's token: its next request is answered 401 until the
    /// interceptor refreshes it (rounds whose tokens expire).
    case expireToken(account: String)
    /// The account signs out: `update(credential: nil)` on its session's
    /// ``AuthenticationInterceptor`` (rounds whose tokens expire); from then on none of its
    /// requests may carry a token until it signs in again.
    case logout(account: String)
    /// The account signs in again: `update(credential:)` with its current token.
    case signIn(account: String)
    /// `read(held.id)` twice in a row: the second read is judged for freshness (a fresh stored
    /// answer is used without a request) and validators (a revalidation carries the stored `ETag`).
    case reread(handle: Int)
    /// The app updates to version 2 of its schema: `storage.migrate` with a migration that renames
    /// ``CheckItem/tag`` to ``CheckItem/label`` (rounds with ``CheckServerShape/migrates``); its
    /// writes from then on carry `label`, and no body the server gets may carry both.
    case migrate
    /// A step of the lists and their children (rounds with ``CheckServerShape/childCollection``).
    case child(CheckChildAction)
    /// Every outbox lease in the app's store lapses on the store's clock while its sender is
    /// alive (as when a loaded machine starves its renewals): drawn while a step's request is
    /// held, before another road runs.
    case leasesLapse
    /// Two actions, one after the other (as a step's `during`: several things happen while its
    /// first request is held, e.g. the app's own write answered and another client's write).
    indirect case both(CheckAction, CheckAction)
}

/// A strategy a step's call goes through.
public enum CheckStrategy: String, Sendable, Hashable, CaseIterable {
    case remoteFirst, localFirst, cacheFirst, staleWhileRevalidate
    /// Written to the store and queued only (`Rule(target: .local, synchronize: false)`): an app
    /// whose writes a forwarder sends. Never drawn for a step of its own; what runs during a
    /// flush drawn `staleWhileRevalidate` runs so (the fleet crash test's writer, seed
    /// 4651685230389486758: writes queued behind the one the flush has out, none sent at once).
    case recordOnly
}

/// A fault the first request of a step meets.
public enum CheckFault: String, Sendable, Hashable, CaseIterable {
    /// Applied, then the connection dropped: the answer is lost.
    case applyThenDrop
    /// Applied, then the server stops listening: the retry's connection is refused.
    case applyThenGoOffline
    /// Dropped before it was handled.
    case drop
    /// 503 with `Retry-After: 0`.
    case unavailable
    /// 500.
    case serverError
    /// Answered after the client's timeout (applied first).
    case pastTimeout
    /// The write's answer is held past the client's timeout while its key stays in flight.
    case slowAnswer
    /// The connection dies mid-answer.
    case dieMidResponse
    /// The first request is answered; the second (the token refresh after a 401, in rounds whose
    /// tokens expire) is applied, then the server stops listening.
    case secondGoesOffline
    /// The write is applied, then its answer trickles out one byte every 400 ms for 40 s: a
    /// request must still end within its timeout (rounds with a whole-second timeout meet
    /// URLSession's idle timeout).
    case trickle
    /// The call's task is cancelled once its first request is at the server (its answer held
    /// 300 ms there, the write applied).
    case cancel
}

/// One step: an action, through a strategy, as an account, meeting a fault.
public struct CheckStep: Sendable, Hashable {
    /// What the step does.
    public var action: CheckAction
    /// The strategy of the call.
    public var strategy: CheckStrategy
    /// The account (`A` or `B`) whose session sends it; `R` is account A on a second replica (its
    /// own `SQLiteStorage` and forwarder on the same file, rounds with ``CheckServerShape/replica``).
    public var account: String
    /// The fault its first request meets.
    public var fault: CheckFault?
    /// An action run (same strategy and account) while this step's first request is held at the
    /// server: two calls in flight at once, or another client writing while a page is out.
    public var during: CheckAction?

    /// Makes a step.
    public init(
        _ action: CheckAction, strategy: CheckStrategy = .remoteFirst, account: String = "A", fault: CheckFault? = nil,
        during: CheckAction? = nil
    ) {
        self.action = action
        self.strategy = strategy
        self.account = account
        self.fault = fault
        self.during = during
    }

    /// Whether the step calls a repository (so strategy and account matter).
    public var callsRepository: Bool {
        switch action {
        case .create, .update, .patch, .delete, .read, .readV2, .readAll, .readQuery, .synchronize, .recreate,
            .recreateJSON, .reread:
            true
        default: false
        }
    }

    /// Whether the step sends anything (so a fault can meet it).
    public var sends: Bool { callsRepository || action == .flush }

    /// The account whose token the step's requests carry (`R`, the replica, is account A).
    public var caller: String { account == "R" ? "A" : account }
}

/// A whole program: the server's shape and the steps.
public struct CheckProgram: Sendable, Hashable {
    /// The round's seed (for the report).
    public var seed: UInt64
    /// The server and store.
    public var shape: CheckServerShape
    /// The steps, in order.
    public var steps: [CheckStep]

    /// Makes a program.
    public init(seed: UInt64, shape: CheckServerShape, steps: [CheckStep]) {
        self.seed = seed
        self.shape = shape
        self.steps = steps
    }

    /// The program drawn from `seed`: `count` steps over a few entities, with faults, other
    /// clients, offline spells, account switches and restarts.
    public init(seed: UInt64, count: Int) {
        var random = SeededGenerator(seed: seed)
        self.seed = seed
        shape = CheckServerShape(using: &random)
        shape.declaresServerKeys = CheckServerShape.drawsServerKeys(seed: seed)
        // Steps added later are drawn apart (so an older seed keeps its steps, with some added).
        var extra = SeededGenerator(seed: seed ^ 0x4D49_4752_4154_4521)
        var lapses = SeededGenerator(seed: seed ^ 0x4C41_5053_452D_4C45)
        shape.migrates = Int.random(in: 0..<4, using: &extra) == 0
        shape.migratesQueued = shape.migrates && Bool.random(using: &extra)
        shape.hugeAge = shape.cacheControl != nil && Int.random(in: 0..<4, using: &extra) == 0
        var spelled = SeededGenerator(seed: seed ^ 0x4C4F_4341_4C2D_4944)
        shape.localSpelledIDs =
            !shape.assignsIDs && !shape.lowercaseIDs && Int.random(in: 0..<3, using: &spelled) == 0
        var empty = SeededGenerator(seed: seed ^ 0x3230_3420_454D_5054)
        // Only where the app declares the keys the server stamps (`updated_at`): an app that sends
        // the stamp back as its own field cannot tell the server's stamp from another client's
        // edit once an answer without an ETag hid the new version (a 412 then is a conflict).
        // Nor with a migration: the server keeps v1's `tag` where the store now says `label`, and
        // after an answer without an ETag the app's own edit then reads as another's (seed
        // 15957491534030052949: its next edit is dropped as a conflict; an issue of its own).
        shape.answersWritesEmpty =
            shape.declaresServerKeys && !shape.migrates && Int.random(in: 0..<2, using: &empty) == 0
        var links = SeededGenerator(seed: seed ^ 0x4C49_4E4B_2D50_4147)
        shape.linkPaging = !shape.incremental && Int.random(in: 0..<3, using: &links) == 0
        var silent = SeededGenerator(seed: seed ^ 0x524F_5753_2D50_4147)
        shape.silentPages =
            !shape.incremental && !shape.linkPaging && Int.random(in: 0..<4, using: &silent) == 0
        CheckServerShape.drawReadPersonalities(into: &shape, seed: seed)
        let migrateAt = shape.migrates ? Int.random(in: count / 5...max(count / 5, count * 3 / 5), using: &extra) : nil
        steps = []
        var live: [Int] = []
        var next = 1
        var offlineFor = 0
        // Steps until a signed-out account signs in again.
        var signedOut: (account: String, steps: Int)?
        for index in 0..<count {
            if let out = signedOut {
                signedOut = out.steps > 1 ? (out.account, out.steps - 1) : nil
                if signedOut == nil {
                    steps.append(CheckStep(.signIn(account: out.account)))
                    continue
                }
            }
            if offlineFor > 0 {
                offlineFor -= 1
                if offlineFor == 0 {
                    steps.append(CheckStep(.online))
                    continue
                }
            }
            // Added steps: the app's schema migration (once, preferably while writes are queued
            // offline, so a later edit meets a create still queued), and reads read twice.
            if let migrateAt, index >= migrateAt, !steps.contains(where: { $0.action == .migrate }) {
                if offlineFor > 0 {
                    // The spell's queued writes meet it, and often a v2 edit of the last entity.
                    steps.append(CheckStep(.migrate))
                    if let last = live.last, Bool.random(using: &extra) {
                        steps.append(CheckStep(.patch(handle: last, value: "m\(index)"), strategy: .localFirst))
                    }
                } else if signedOut == nil {
                    // Issue 32 #13's shape: offline, v1 creates and edits an entity (the create tried
                    // at once, the edit queued behind it, untried), the app updates, v2 edits it.
                    let handle = next
                    next += 1
                    live.append(handle)
                    steps.append(CheckStep(.offline))
                    steps.append(
                        CheckStep(
                            .create(handle: handle, value: "m\(index)"),
                            strategy: Bool.random(using: &extra) ? .localFirst : .remoteFirst))
                    if Int.random(in: 0..<10, using: &extra) < 7 {
                        steps.append(CheckStep(.update(handle: handle, value: "m\(index)u"), strategy: .localFirst))
                    }
                    steps.append(CheckStep(.migrate))
                    let edit: CheckAction =
                        Int.random(in: 0..<10, using: &extra) < 7
                        ? .patch(handle: handle, value: "m\(index)p") : .update(handle: handle, value: "m\(index)p")
                    steps.append(CheckStep(edit, strategy: .localFirst))
                    steps.append(CheckStep(.online))
                }
            }
            if !live.isEmpty, Int.random(in: 0..<100, using: &extra) < 4 {
                let handle = live[Int.random(in: 0..<live.count, using: &extra)]
                let strategy: CheckStrategy = Bool.random(using: &extra) ? .cacheFirst : .remoteFirst
                steps.append(CheckStep(.reread(handle: handle), strategy: strategy))
            }
            let roll = Int.random(in: 0..<100, using: &random)
            let action: CheckAction
            // Offline spells create more (the offline create an app makes, then edits online).
            if live.isEmpty || roll < (offlineFor > 0 ? 40 : 20) {
                action = .create(handle: next, value: "v\(index)")
                live.append(next)
                next += 1
            } else {
                // Half the time the entity made last: an app edits what it just created.
                let handle =
                    Bool.random(using: &random)
                    ? live[live.count - 1] : live[Int.random(in: 0..<live.count, using: &random)]
                switch roll {
                case 20..<36: action = .update(handle: handle, value: "v\(index)")
                case 36..<46: action = .patch(handle: handle, value: "v\(index)")
                case 46..<50 where !shape.assignsIDs && !live.isEmpty:
                    action =
                        Bool.random(using: &random)
                        ? .recreate(handle: handle, value: "v\(index)")
                        : .recreateJSON(handle: handle, value: "v\(index)")
                case 46..<54:
                    action = .delete(handle: handle)
                    if Bool.random(using: &random) { live.removeAll { $0 == handle } }
                case 54..<58: action = .readV2(handle: handle)
                case 58..<66: action = .read(handle: handle)
                case 66..<70: action = .readAll
                case 70..<72: action = .readQuery
                case 72..<78: action = .synchronize
                case 78..<84: action = .flush
                case 84..<90: action = .otherWrite(handle: handle, value: "o\(index)")
                case 90..<91: action = .otherDelete(handle: handle)
                case 91..<92: action = .otherCorrupt(handle: handle)
                case 92..<97:
                    guard offlineFor == 0 else { action = .flush; break }
                    action = .offline
                    offlineFor = Int.random(in: 1...4, using: &random)
                    // An app that was away a while comes back with an expired token, often.
                    if shape.refreshesTokens, Bool.random(using: &random) {
                        steps.append(CheckStep(.expireToken(account: "A")))
                    }
                case 97..<98 where shape.refreshesTokens:
                    action = .expireToken(account: Bool.random(using: &random) ? "A" : "B")
                case 98..<99 where shape.refreshesTokens && signedOut == nil:
                    let account = Bool.random(using: &random) ? "A" : "B"
                    action = .logout(account: account)
                    signedOut = (account, Int.random(in: 1...4, using: &random))
                default: action = shape.sqlite ? .restart : .readAll
                }
            }
            var step = CheckStep(action)
            step.strategy = CheckStrategy.allCases[Int.random(in: 0..<4, using: &random)]
            // A second account on the same store; often when answers vary by caller.
            if shape.replica, Int.random(in: 0..<100, using: &random) < 20 {
                // Account A on the second replica (its own store instance and forwarder, one file).
                step.account = "R"
            } else if Int.random(in: 0..<100, using: &random) < (shape.variesByCaller ? 35 : 12) {
                step.account = "B"
                // The other account mostly looks at the list (what a second user of the device does).
                if shape.variesByCaller, step.callsRepository, Int.random(in: 0..<100, using: &random) < 40 {
                    step.action = .readAll
                }
            }
            if step.sends, offlineFor == 0, Int.random(in: 0..<100, using: &random) < 22 {
                step.fault = CheckFault.allCases[Int.random(in: 0..<CheckFault.allCases.count, using: &random)]
                // The network drops while the token is refreshed: the refresh meets it.
                if step.fault == .secondGoesOffline, shape.refreshesTokens {
                    steps.append(CheckStep(.expireToken(account: step.account)))
                }
            }
            if step.sends, offlineFor == 0, Int.random(in: 0..<100, using: &random) < 15, let some = live.last {
                // One to three things at once while the step's first request is held (the app's own
                // write answered and other clients writing two entities while a page is out, say).
                var parts: [CheckAction] = []
                for part in 0..<3 where part == 0 || Int.random(in: 0..<100, using: &random) < 30 {
                    let other = live[Int.random(in: 0..<live.count, using: &random)]
                    var choices: [CheckAction] = [
                        .create(handle: next, value: "w\(index)-\(part)"),
                        .update(handle: some, value: "w\(index)-\(part)"), .delete(handle: other),
                        .otherWrite(handle: other, value: "p\(index)-\(part)"),
                        .otherWrite(handle: some, value: "p\(index)-\(part)"), .readAll,
                        shape.assignsIDs
                            ? .patch(handle: other, value: "w\(index)-\(part)")
                            : .recreate(handle: other, value: "w\(index)-\(part)"),
                        // Two flushes or two synchronizations at once (on the other replica, in
                        // rounds with one), another client's delete, a token expiring mid-call.
                        .flush, .synchronize, .otherDelete(handle: other),
                    ]
                    if shape.refreshesTokens { choices.append(.expireToken(account: step.account == "B" ? "B" : "A")) }
                    // A sign-out while the step's token refresh is under way (the token expires first).
                    if shape.refreshesTokens, part == 0, signedOut == nil, step.account != "R" {
                        choices.append(.logout(account: step.account))
                    }
                    // The app switches to the other account while the step's token refresh is under
                    // way (issue 42 #11): what the step's account wrote waits for it.
                    if shape.declaresAccounts, part == 0, step.account != "R" {
                        choices.append(.signIn(account: step.account == "B" ? "A" : "B"))
                    }
                    let choice = choices[Int.random(in: 0..<choices.count, using: &random)]
                    if case .create = choice {
                        live.append(next)
                        next += 1
                    }
                    if case .signIn = choice { steps.append(CheckStep(.expireToken(account: step.account))) }
                    if case .logout(let account) = choice {
                        steps.append(CheckStep(.expireToken(account: account)))
                        signedOut = (account, Int.random(in: 1...3, using: &random))
                    }
                    parts.append(choice)
                }
                step.during = parts.dropLast().reversed().reduce(parts[parts.count - 1]) { .both($1, $0) }
            }
            // While the step's request is held, the leases of the app's store lapse (its sender
            // alive, its renewals starved) and another road runs: the parallel ThreadSanitizer
            // run's `APPLIED TWICE` (seed 13 of the soak), a sibling sender taking an open claim.
            if step.sends, offlineFor == 0, Int.random(in: 0..<100, using: &lapses) < 8 {
                let road: CheckAction = Bool.random(using: &lapses) ? .flush : .synchronize
                step.during = .both(.leasesLapse, step.during.map { .both(road, $0) } ?? road)
            }
            if !step.callsRepository {
                // A flush keeps its strategy for what runs during it (a local-first delete and
                // re-create queued behind the update it sends), and may run on the second replica.
                if step.action != .flush || step.during == nil { step.strategy = .remoteFirst }
                if step.action == .flush, step.strategy == .staleWhileRevalidate { step.strategy = .recordOnly }
                if !(step.action == .flush && step.account == "R") { step.account = "A" }
            }
            steps.append(step)
        }
        CheckChildAction.draw(into: &self, seed: seed)
    }
}
