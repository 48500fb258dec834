import Foundation

/// How many events not yet read a Depot event stream keeps: the newest 1,024; older ones are
/// dropped, so a subscriber that stops reading costs bounded memory.
let eventStreamBufferLimit = 1024

/// Hands each event to every current subscriber's `AsyncStream`: a stream per subscriber, so
/// several loops can watch one source. A stream keeps the newest ``eventStreamBufferLimit``
/// events its loop has not read yet.
final class EventHub<Event: Sendable>: Sendable {
    private let subscribers = LockedValue<[UUID: AsyncStream<Event>.Continuation]>([:])
    /// How many unread events each stream keeps (the newest).
    private let limit: Int

    /// A hub whose streams keep the newest `limit` unread events each.
    init(limit: Int = eventStreamBufferLimit) {
        precondition(limit >= 1, "an event stream keeps at least one event")
        self.limit = limit
    }

    /// A stream of the events emitted from now on; it ends when the hub finishes.
    func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Event.self, bufferingPolicy: .bufferingNewest(limit))
        let id = UUID.randomV4()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `event` to every subscriber.
    func emit(_ event: Event) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// Ends every subscriber's stream.
    func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
