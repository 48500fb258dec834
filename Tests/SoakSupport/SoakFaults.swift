import DepotTesting
import Foundation

/// The faults a soak round meets, drawn from its seed and queued on the stub server up front: the
/// server takes one per request, in order, so the same seed meets the same faults in the same
/// request order. Most requests meet none (a zero delay stands for "no fault").
public enum SoakFaults {
    /// `Retry-After` values a server may send, hostile ones included: each must be parsed or
    /// ignored, never trap.
    public static let retryAfters = [
        "0", "1", "inf", "1e999", "-1", "nan", "99999999999999999999999", "1.5", " 2 ", "",
        "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "soon",
    ]

    /// What was queued, slot by slot, for the round's report.
    public struct Plan: Sendable {
        /// The kind of each slot's fault (`drop`, `applyThenDrop`, `503+Retry-After`, …), nil for none.
        public var slots: [String?] = []
        /// No faults yet.
        public init() {}

        /// The faults the first `requests` requests met, by kind: the server takes one slot a
        /// request, in order.
        public func met(requests: Int) -> [String: Int] {
            var counts: [String: Int] = [:]
            for case let kind? in slots.prefix(max(requests, 0)) { counts[kind, default: 0] += 1 }
            return counts
        }

        /// The kinds of fault that apply a write and lose its answer: the client cannot tell it
        /// was taken, so it sends the write again.
        public static let answerLosing: Set<String> = ["applyThenDrop", "pastTimeout"]

        /// Per `Idempotency-Key`, how many of `requests` (the server's, in order: request n met
        /// slot n) carried it and met a fault of ``answerLosing``: the resends a server that
        /// ignores keys may apply again.
        public func lostAnswers(_ requests: [RecordedRequest]) -> [String: Int] {
            var counts: [String: Int] = [:]
            for (slot, request) in zip(slots, requests) {
                guard let slot, Self.answerLosing.contains(slot), let key = request.header("Idempotency-Key") else {
                    continue
                }
                counts[key, default: 0] += 1
            }
            return counts
        }
    }

    /// Queues `requests` fault slots on `server`, about `rate` percent of them real faults, and caps
    /// the resource's pages at a size drawn from the seed. `timeoutDelay` is a delay longer than
    /// the client's timeout. With `slowDelays` (milliseconds, shorter than the client's timeout),
    /// about one slot in twelve is a `slow` answer: taken, but answered after that long.
    @discardableResult
    public static func queue(
        on server: StubServer, resource: String, seed: UInt64, requests: Int, rate: Int, timeoutDelay: Duration,
        slowDelays: ClosedRange<Int>? = nil
    ) -> Plan {
        var random = SeededGenerator(seed: seed ^ 0x5EED_FA17)
        var plan = Plan()
        server.setPaging(
            maximumSize: Int.random(in: 2...6, using: &random), hidingTotalCount: Bool.random(using: &random),
            for: resource)
        for _ in 0..<requests {
            if let slowDelays, Int.random(in: 0..<12, using: &random) == 0 {
                plan.slots.append("slow")
                server.inject(.delay(.milliseconds(Int.random(in: slowDelays, using: &random))))
                continue
            }
            guard Int.random(in: 0..<100, using: &random) < rate else {
                plan.slots.append(nil)
                server.inject(.delay(.zero))
                continue
            }
            let (name, fault) = draw(&random, timeoutDelay: timeoutDelay)
            plan.slots.append(name)
            server.inject(fault)
        }
        return plan
    }

    /// One real fault.
    private static func draw(_ random: inout SeededGenerator, timeoutDelay: Duration) -> (String, StubFault) {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<20: return ("applyThenDrop", .applyThenDropConnection)
        case 20..<35: return ("drop", .dropConnection)
        case 35..<55:
            let value = retryAfters[Int.random(in: 0..<retryAfters.count, using: &random)]
            return ("503+Retry-After", .status(503, headers: ["Retry-After": value]))
        case 55..<65: return ("500", .status(500))
        case 65..<75: return ("429", .status(429, headers: ["Retry-After": "0"]))
        case 75..<85: return ("dieMidResponse", .dieMidResponse)
        case 85..<92: return ("delay", .delay(.milliseconds(Int.random(in: 1...40, using: &random))))
        case 92..<96: return ("pastTimeout", .delay(timeoutDelay))
        default: return Bool.random(using: &random) ? ("409", .status(409)) : ("412", .status(412))
        }
    }
}
