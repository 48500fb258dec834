extension ActionRecord {
    /// One action's lifecycle as a value: every transition returns what the shell must do, so the
    /// rules (a finished action is never cancelled; cancelled before start never runs) are tested
    /// without threads in `ActionStateMachineTests`.
    struct StateMachine: Sendable, Hashable {
        enum State: Sendable, Hashable {
            case pending
            case executing(cancelRequested: Bool)
            case finished
            case failed
            case cancelled
        }

        private(set) var state: State = .pending

        /// The public view of ``state``.
        var publicState: ActionState {
            switch state {
            case .pending: .pending
            case .executing: .executing
            case .finished: .finished
            case .failed: .failed
            case .cancelled: .cancelled
            }
        }

        /// Whether the action was asked to stop: cancelled pending, or a cancel arrived while it ran.
        var isCancelRequested: Bool {
            switch state {
            case .executing(let requested): requested
            case .cancelled: true
            case .pending, .finished, .failed: false
            }
        }

        enum StartAction: Sendable, Hashable {
            /// Run the body now.
            case run
            /// Cancelled before its turn came: never run it; give its slot back.
            case skip
        }

        /// The executor gave the action a slot.
        mutating func start() -> StartAction {
            switch state {
            case .pending:
                state = .executing(cancelRequested: false)
                return .run
            case .cancelled:
                return .skip
            case .executing, .finished, .failed:
                preconditionFailure("an action was started twice")
            }
        }

        enum CancelAction: Sendable, Hashable {
            /// Nothing to do: already asked, or already ended.
            case none
            /// It had not started: it is cancelled now and never runs; report it and drop it from the queue.
            case cancelPending
            /// It is running: call its cancel hook and cancel its task; it ends when its body returns.
            case cancelRunning
        }

        /// Someone cancelled the action. Idempotent.
        mutating func cancel() -> CancelAction {
            switch state {
            case .pending:
                state = .cancelled
                return .cancelPending
            case .executing(cancelRequested: false):
                state = .executing(cancelRequested: true)
                return .cancelRunning
            case .executing(cancelRequested: true), .finished, .failed, .cancelled:
                return .none
            }
        }

        /// How the body ended.
        enum Outcome: Sendable, Hashable {
            case returned
            case threw(isCancellation: Bool)
        }

        /// The body returned or threw; the terminal state it leads to.
        ///
        /// A body that returns has finished, even when a cancel arrived meanwhile (its work is
        /// done). One that throws after a cancel, or throws a cancellation, is cancelled.
        mutating func end(_ outcome: Outcome) -> ActionState {
            guard case .executing(let cancelRequested) = state else {
                preconditionFailure("an action ended that was not running")
            }
            switch outcome {
            case .returned:
                state = .finished
            case .threw(let isCancellation):
                state = cancelRequested || isCancellation ? .cancelled : .failed
            }
            return publicState
        }
    }
}
