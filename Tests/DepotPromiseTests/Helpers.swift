import DepotPromise
import Dispatch
import Foundation

struct TestError: Error, Equatable { var id = 0 }

/// A thread-safe log of events, for asserting order.
final class EventLog: Sendable {
    private let events = LockedValue<[String]>([])
    func append(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = LockedValue(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Waits (without blocking a cooperative thread for long) until `condition` holds or `seconds` pass.
func eventually(seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// A queue-identity marker so a test can tell which queue a callback ran on.
let queueKey = DispatchSpecificKey<String>()

func makeQueue(_ label: String, concurrent: Bool = false) -> DispatchQueue {
    let queue = DispatchQueue(label: label, attributes: concurrent ? [.concurrent] : [])
    queue.setSpecific(key: queueKey, value: label)
    return queue
}
