import Depot
import Foundation
import Logging

/// Opens once; every waiter, earlier or later, then goes on.
final class Gate: Sendable {
    private let state = LockedValue<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let goOn = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if goOn { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// What the probe actions did, in the order a lock saw it: begins and ends, how many ran at
/// once (the most, too), and how often each cancel hook ran.
final class ProbeLog: Sendable {
    private struct State {
        var lines: [String] = []
        var running = 0
        var mostRunning = 0
        var hooks: [String: Int] = [:]
    }
    private let state = LockedValue(State())

    func begin(_ name: String) {
        state.withLock { state in
            state.lines.append("begin \(name)")
            state.running += 1
            state.mostRunning = max(state.mostRunning, state.running)
        }
    }

    func end(_ name: String) {
        state.withLock { state in
            state.lines.append("end \(name)")
            state.running -= 1
        }
    }

    func hook(_ name: String) { state.withLock { $0.hooks[name, default: 0] += 1 } }

    var lines: [String] { state.withLock { $0.lines } }
    var running: Int { state.withLock { $0.running } }
    var mostRunning: Int { state.withLock { $0.mostRunning } }
    func hooks(_ name: String) -> Int { state.withLock { $0.hooks[name, default: 0] } }
    func began(_ name: String) -> Bool { lines.contains("begin \(name)") }
}

struct ProbeFailure: Error, Equatable {
    let name: String
}

/// A test action: logs its begin and end, waits for `gate`, sleeps (cancellably) if asked,
/// reports `progressSteps` progress events, records one insert, and returns 1 or throws.
struct Probe: Action {
    let name: String
    var serializationKey: String? = nil
    let log: ProbeLog
    var gate: Gate? = nil
    var sleep: Duration? = nil
    var yields = 0
    var progressSteps = 0
    var fails = false

    func execute(context: ActionContext) async throws -> Int {
        log.begin(name)
        defer { log.end(name) }
        if let gate { await gate.wait() }
        if let sleep { try await Task.sleep(for: sleep) }
        for _ in 0..<yields { await Task.yield() }
        for step in 0..<progressSteps { context.progress(completed: step + 1, total: progressSteps) }
        if fails { throw ProbeFailure(name: name) }
        context.record(.inserted)
        return 1
    }

    func cancel() { log.hook(name) }
}

/// Reads `stream` to its end.
func collect(_ stream: AsyncStream<ActionEvent>) async -> [ActionEvent] {
    var events: [ActionEvent] = []
    for await event in stream { events.append(event) }
    return events
}

/// Whether `kinds` is a valid life: submitted, then started with progress, or straight to the
/// end, then exactly one terminal event, last.
func isValidLife(_ kinds: [String]) -> Bool {
    guard kinds.first == "submitted", let last = kinds.last, ["finished", "failed", "cancelled"].contains(last) else {
        return false
    }
    let middle = kinds.dropFirst().dropLast()
    if middle.isEmpty { return last == "cancelled" }
    return middle.first == "started" && middle.dropFirst().allSatisfy { $0 == "progress" }
}

/// A logger that drops everything, for tests whose actions fail on purpose.
let quietLogger = Logger(label: "test.quiet") { _ in SwiftLogNoOpLogHandler() }
