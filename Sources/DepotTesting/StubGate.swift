import Depot

/// A gate a test opens: an answer held by ``StubFault/hold(_:)`` is written only once the test
/// calls ``open()``, however slow the machine. Use it instead of a delay when a test needs a
/// request to stay at the server until some other step has happened.
///
/// ```swift
/// let gate = StubGate()
/// server.inject(.hold(gate), pathPrefix: "/notes")
/// // … the step that must happen while the write is at the server …
/// gate.open()
/// ```
public final class StubGate: Sendable, Hashable {
    /// Open, and the answers waiting for it.
    private let state = LockedValue<(isOpen: Bool, waiting: [@Sendable () -> Void])>((false, []))

    /// A closed gate.
    public init() {}

    /// Lets every held answer go, and every later one through at once.
    public func open() {
        let waiting = state.withLock { state in
            defer { state = (true, []) }
            return state.waiting
        }
        for answer in waiting { answer() }
    }

    /// True once ``open()`` was called.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Runs `answer` once the gate is open (now, if it is).
    func whenOpen(_ answer: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if !state.isOpen { state.waiting.append(answer) }
            return state.isOpen
        }
        if now { answer() }
    }

    /// Gates are equal when they are the same gate.
    public static func == (lhs: StubGate, rhs: StubGate) -> Bool { lhs === rhs }

    /// Hashes the gate's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
