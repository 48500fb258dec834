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
    /// `readAll()`.
    case readAll
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
    /// The server stops listening.
    case offline
    /// The server listens again.
    case online
    /// The app quits and starts again on the same SQLite file (nothing in memory survives).
    case restart
    /// The server expires the account's token: its next request is answered 401 until the
    /// interceptor refreshes it (rounds whose tokens expire).
    case expireToken(account: String)
}

/// A strategy a step's call goes through.
public enum CheckStrategy: String, Sendable, Hashable, CaseIterable {
    case remoteFirst, localFirst, cacheFirst, staleWhileRevalidate
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
}

/// One step: an action, through a strategy, as an account, meeting a fault.
public struct CheckStep: Sendable, Hashable {
    /// What the step does.
    public var action: CheckAction
    /// The strategy of the call.
    public var strategy: CheckStrategy
    /// The account (`A` or `B`) whose session sends it.
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
        case .create, .update, .patch, .delete, .read, .readAll, .synchronize, .recreate: true
        default: false
        }
    }

    /// Whether the step sends anything (so a fault can meet it).
    public var sends: Bool { callsRepository || action == .flush }
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
        steps = []
        var live: [Int] = []
        var next = 1
        var offlineFor = 0
        for index in 0..<count {
            if offlineFor > 0 {
                offlineFor -= 1
                if offlineFor == 0 {
                    steps.append(CheckStep(.online))
                    continue
                }
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
                    action = .recreate(handle: handle, value: "v\(index)")
                case 46..<54:
                    action = .delete(handle: handle)
                    if Bool.random(using: &random) { live.removeAll { $0 == handle } }
                case 54..<66: action = .read(handle: handle)
                case 66..<72: action = .readAll
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
                case 97..<99 where shape.refreshesTokens:
                    action = .expireToken(account: Bool.random(using: &random) ? "A" : "B")
                default: action = shape.sqlite ? .restart : .readAll
                }
            }
            var step = CheckStep(action)
            step.strategy = CheckStrategy.allCases[Int.random(in: 0..<4, using: &random)]
            // A second account on the same store; often when answers vary by caller.
            if Int.random(in: 0..<100, using: &random) < (shape.variesByCaller ? 35 : 12) {
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
                let other = live[Int.random(in: 0..<live.count, using: &random)]
                let choices: [CheckAction] = [
                    .create(handle: next, value: "w\(index)"), .update(handle: some, value: "w\(index)"),
                    .delete(handle: other), .otherWrite(handle: other, value: "p\(index)"),
                    .otherWrite(handle: some, value: "p\(index)"), .readAll,
                    shape.assignsIDs
                        ? .patch(handle: other, value: "w\(index)") : .recreate(handle: other, value: "w\(index)"),
                ]
                step.during = choices[Int.random(in: 0..<choices.count, using: &random)]
                if case .create = step.during {
                    live.append(next)
                    next += 1
                }
            }
            if !step.callsRepository {
                step.strategy = .remoteFirst
                step.account = "A"
            }
            steps.append(step)
        }
    }
}
