import Depot
import DepotTesting
import Foundation

extension CheckApp {
    /// The longest a call through one of the app's sessions may take: each attempt ends within the
    /// timeout (a total), each pause between attempts is shorter than it (a `Retry-After` that asks
    /// more is not waited for, issue 43 #9), a 401 adds a token refresh and one more attempt; then
    /// a margin of 5 s for a loaded machine. Far below a `Retry-After: 30` waited for.
    var callLimit: Duration {
        let attempts = 3
        return timeout * (2 * attempts + 2) + .seconds(5)
    }

    /// `DEADLINE`: every call through the app's sessions (a read, a page, a write, an outbox
    /// entry's send) ended within ``callLimit``, or, still under way (a step that hung), has not
    /// yet run past it. Reported before a step's `HANG`, so a call that waits out a long
    /// `Retry-After` shrinks as what it is. `step` is nil for the final checks.
    func judgeDeadlines(step: Int?, _ outcome: inout CheckRunner.Outcome) {
        let now = ContinuousClock.now
        let limit = callLimit
        let late = calls.calls.withLock { calls -> [CheckTimedNetworking.Call] in
            var late: [CheckTimedNetworking.Call] = []
            for index in calls.indices where !calls[index].judged {
                let took = (calls[index].ended ?? now) - calls[index].began
                guard took > limit else { continue }
                calls[index].judged = true
                late.append(calls[index])
            }
            return late
        }
        let found = late.map { call in
            let took = ((call.ended ?? now) - call.began).formatted(
                .units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            let how = call.ended == nil ? "is still under way after \(took)" : "took \(took) (\(call.outcome))"
            return CheckViolation(
                kind: "DEADLINE", step: step,
                message:
                    "\(call.request) \(how); with a \(timeout) timeout and 3 attempts no call needs more than \(limit)")
        }
        guard !found.isEmpty else { return }
        let hang = outcome.violations.firstIndex { $0.kind == "HANG" && $0.step == step } ?? outcome.violations.endIndex
        outcome.violations.insert(contentsOf: found, at: hang)
    }

    /// `CREDENTIAL`: no request that reached the other origin (``CheckServerShape/redirectsElsewhere``)
    /// carried a header that identifies the caller: `Authorization`, `Cookie`,
    /// `Proxy-Authorization`, or the `X-API-Key` the app declares (issue 43 #3).
    func judgeCredentials(flag: (String, String) -> Void) {
        guard let mirror else { return }
        let names = ["Authorization", "Cookie", "Proxy-Authorization", "X-API-Key"]
        for request in mirror.requests {
            let carried = names.filter { request.header($0) != nil }
            guard !carried.isEmpty else { continue }
            flag(
                "CREDENTIAL",
                "\(request.method) \(request.rawPath) reached another origin with \(carried.joined(separator: ", ")): a redirect across origins keeps no header that identifies the caller"
            )
        }
    }
}

extension CheckApp {
    /// ``CheckAction/leasesLapse``: moves the expiry of every lease in `storage` just behind the
    /// store's clock, as a sender's starved renewals leave it (the sender alive, its claim open);
    /// returns how many it moved.
    static func lapseLeases(in storage: Storage) async throws -> Int {
        let leased = try await storage.outbox(OutboxQuery(selection: .all)).filter { $0.lease != nil }.map(\.sequence)
        guard !leased.isEmpty else { return 0 }
        return try await storage.transaction { tx in
            let now = try tx.leaseTime()
            var moved = 0
            for sequence in leased {
                guard var entry = try tx.outboxEntry(sequence: sequence), entry.lease != nil else { continue }
                entry.lease?.expiry = now.addingTimeInterval(-1)
                try tx.replaceOutbox(entry)
                moved += 1
            }
            return moved
        }
    }
}
