import Foundation

/// A graceful stop asked of work that may not have started yet: a handler registered before the
/// stop runs when it is raised, one registered after runs at once. Each handler runs once,
/// outside the lock.
final class StopSignal: Sendable {
    private struct State {
        var raised = false
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = LockedValue(State())

    /// Whether ``raise()`` was called.
    var isRaised: Bool { state.withLock { $0.raised } }

    /// Raises the stop: runs the handlers registered so far. Idempotent.
    func raise() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.raised else { return [] }
            state.raised = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` when the stop is raised, or now when it was.
    func onRaise(_ handler: @escaping @Sendable () -> Void) {
        let raised = state.withLock { state in
            if !state.raised { state.handlers.append(handler) }
            return state.raised
        }
        if raised { handler() }
    }
}
