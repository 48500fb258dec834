import Dispatch

/// The deadlines of every attempt of one transport under ONE Dispatch timer: attempts in a list
/// ordered by deadline, the timer armed for the earliest, and re-armed only when an attempt comes
/// with an earlier deadline than the one it is armed for, or when it fires. An attempt that ends
/// first leaves the list and costs no wake-up: a timer per attempt woke Dispatch's manager thread
/// twice per request (arming it, and firing it at the deadline even when the attempt was long
/// done), which showed in 8-way throughput.
///
/// Entries live in a dictionary as a doubly linked list, keyed by the call; appending at the tail
/// is the common case (one timeout for a transport, deadlines in the order attempts start).
final class DeadlineTimer: @unchecked Sendable {  // @unchecked: `state`'s lock guards entries and arming
    private struct Entry: Sendable {
        var deadline: UInt64
        let call: DeadlineCall
        var earlier: ObjectIdentifier?
        var later: ObjectIdentifier?
    }

    private struct State: Sendable {
        var entries: [ObjectIdentifier: Entry] = [:]
        var first: ObjectIdentifier?
        var last: ObjectIdentifier?
        /// The deadline the timer is armed for (uptime nanoseconds); nil when not armed.
        var armed: UInt64?
    }

    private let state = LockedValue(State())
    private let source: any DispatchSourceTimer

    init() {
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "depot.deadlines"))
        source.setEventHandler { [weak self] in self?.fire() }
        source.resume()
    }

    deinit {
        source.cancel()
    }

    /// Watches `call`, which expires `timeout` from now unless ``remove(_:)`` comes first. The
    /// entry holds the call (and the call this timer) until then.
    func add(_ call: DeadlineCall, timeout: Duration) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (sum, overflow) = now.addingReportingOverflow(UInt64(RequestPipeline.clampedNanoseconds(timeout)))
        let deadline = overflow ? UInt64.max : sum
        let key = ObjectIdentifier(call)
        state.withLock { state in
            var entry = Entry(deadline: deadline, call: call)
            // From the latest back to the first entry not later than this one.
            var earlier = state.last
            while let candidate = earlier, let other = state.entries[candidate], other.deadline > deadline {
                earlier = other.earlier
            }
            entry.earlier = earlier
            if let earlier {
                entry.later = state.entries[earlier]?.later
                state.entries[earlier]?.later = key
            } else {
                entry.later = state.first
                state.first = key
            }
            if let later = entry.later {
                state.entries[later]?.earlier = key
            } else {
                state.last = key
            }
            state.entries[key] = entry
            if state.armed.map({ deadline < $0 }) ?? true { arm(&state, deadline) }
        }
    }

    /// Stops watching `call` (it settled); does nothing when it is not watched.
    func remove(_ call: DeadlineCall) {
        state.withLock { state in _ = Self.unlink(ObjectIdentifier(call), &state) }
    }

    /// The timer went off: expires every call whose deadline passed (outside the lock: an
    /// expiring call runs its completion), then arms the timer for the next deadline.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let expired = state.withLock { state -> [DeadlineCall] in
            state.armed = nil
            var expired: [DeadlineCall] = []
            while let key = state.first, let entry = state.entries[key], entry.deadline <= now {
                if let call = Self.unlink(key, &state) { expired.append(call) }
            }
            if let key = state.first, let next = state.entries[key] { arm(&state, next.deadline) }
            return expired
        }
        for call in expired { call.expire() }
    }

    /// Arms the timer for `deadline`; under the lock, so two arms never land out of order.
    private func arm(_ state: inout State, _ deadline: UInt64) {
        state.armed = deadline
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: deadline), repeating: .never, leeway: .milliseconds(1))
    }

    /// Takes the entry `key` out of the list; returns its call, or nil when it was not there.
    private static func unlink(_ key: ObjectIdentifier, _ state: inout State) -> DeadlineCall? {
        guard let entry = state.entries.removeValue(forKey: key) else { return nil }
        if let earlier = entry.earlier {
            state.entries[earlier]?.later = entry.later
        } else {
            state.first = entry.later
        }
        if let later = entry.later {
            state.entries[later]?.earlier = entry.earlier
        } else {
            state.last = entry.earlier
        }
        return entry.call
    }
}
