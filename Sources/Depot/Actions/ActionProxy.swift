import Foundation

/// A handle on one submitted action: its state, statistics, events and result; cancellable.
///
/// ```swift
/// let proxy = executor.execute(ImportAuthors(source: url))
/// print(proxy.state)                          // .pending or .executing
/// let count = try await proxy.result.value    // the action's output
/// print(proxy.statistics)
/// ```
public final class ActionProxy<Output: Sendable>: Sendable {
    /// The action's id within its executor.
    public var id: ActionID { record.id }
    /// The action's name.
    public var name: String { record.name }
    /// The action's serialization key, if it has one.
    public var serializationKey: String? { record.key }
    /// What the action returns: fulfilled when it finishes, rejected with its error when it
    /// fails, with `DepotError` `.cancelled` when it is cancelled. Cancelling this promise
    /// cancels the action.
    public let result: Promise<Output>

    private let record: ActionRecord
    private let onCancel: @Sendable (ActionRecord.StateMachine.CancelAction) -> Void

    init(
        record: ActionRecord, result: Promise<Output>,
        onCancel: @escaping @Sendable (ActionRecord.StateMachine.CancelAction) -> Void
    ) {
        self.record = record
        self.result = result
        self.onCancel = onCancel
    }

    /// Where the action is now.
    public var state: ActionState { record.publicState }

    /// Its times and counts so far.
    public var statistics: ActionStatistics { record.statistics }

    /// This action's events: those so far (the latest progress only), then the rest as they
    /// come. The stream ends after the terminal event.
    public var events: AsyncStream<ActionEvent> { record.events() }

    /// Cancels the action. Idempotent. A pending action then never runs; a running one has its
    /// ``Action/cancel()`` hook called and its task cancelled; one that has ended is unaffected.
    public func cancel() {
        onCancel(record.cancel())
    }

    /// Asks the action to stop gracefully: it sees ``ActionContext/isStopping`` and ends after
    /// its request in flight, whose answer it stores (a ``SynchronizeAction`` stops after the
    /// entry, batch or page in flight and reports ``SynchronizationReport/stoppedEarly``). Unlike
    /// ``cancel()``, nothing in flight is interrupted; a pending action still runs, seeing the
    /// stop at once. Idempotent.
    public func stop() {
        record.requestStop()
    }
}
