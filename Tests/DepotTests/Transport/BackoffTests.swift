import DepotTesting
import Foundation
import Testing

@testable import Depot

@Suite struct BackoffTests {
    /// 2 October 2026 00:00:00 GMT, the "now" of the date cases.
    static let now = Date(timeIntervalSince1970: 1_790_899_200)

    @Test(
        "Retry-After is delay-seconds or an HTTP date; every other value is ignored, none traps",
        arguments: [
            ("0", 0), ("12", 12), (" 12 ", 12), ("\t7", 7),
            ("99999999999999999999999", RetryAfter.saturation),
            (String(repeating: "9", count: 400), RetryAfter.saturation),
            ("inf", nil), ("1e999", nil), ("nan", nil), ("-1", nil), ("+1", nil), ("1.5", nil), ("", nil),
            ("  ", nil), ("soon", nil), ("12s", nil), ("١٢", nil), ("0x10", nil),
            ("Fri, 02 Oct 2026 00:01:40 GMT", 100), ("Friday, 02-Oct-26 00:01:40 GMT", 100),
            ("Fri Oct  2 00:01:40 2026", 100), ("Thu, 01 Oct 2026 00:00:00 GMT", 0),
            ("Sun, 06 Nov 1994 08:49:37 GMT", 0), ("Fri, 32 Oct 2026 00:00:00 GMT", nil),
        ] as [(String, Double?)])
    func retryAfter(value: String, expected: Double?) {
        #expect(RetryAfter.seconds(value, now: Self.now) == expected)
    }

    @Test(
        "the computed pause stays within 0…maximum for any failure count",
        arguments: [0, 1, 2, 68, 1_000, 10_000, Int.max, Int.min, -1])
    func failures(count: Int) {
        let backoff = Backoff(base: .milliseconds(200), multiplier: 2, maximum: .seconds(30), jitter: 0.2)
        for random in [0.0, 0.5, 1.0] {
            let delay = backoff.delay(failures: count, random: random)
            #expect(delay >= .zero && delay <= .seconds(30))
        }
        let exact = Backoff(base: .milliseconds(200), multiplier: 2, maximum: .seconds(30), jitter: 0)
        let expected: Duration =
            switch count {
            case ...1: .milliseconds(200)
            case 2: .milliseconds(400)
            default: .seconds(30)
            }
        #expect(exact.delay(failures: count) == expected)
    }

    @Test(
        "hostile parameters and Retry-After values give a bounded pause",
        arguments: [
            (Double.infinity, nil), (.nan, nil), (-3, nil), (0, nil), (2, .infinity), (2, -.infinity), (2, .nan),
            (2, -5), (2, 1e300), (2, 5),
        ] as [(Double, Double?)])
    func hostile(multiplier: Double, retryAfter: Double?) {
        for base in [Duration.zero, .milliseconds(200), .seconds(Int64.max)] {
            for maximum in [Duration.zero, .seconds(30), .seconds(Int64.max)] {
                let backoff = Backoff(base: base, multiplier: multiplier, maximum: maximum, jitter: .nan)
                for failures in [1, 2, 68, Int.max] {
                    let delay = backoff.delay(failures: failures, retryAfter: retryAfter, random: .nan)
                    #expect(delay >= .zero && delay <= maximum)
                }
            }
        }
    }

    @Test("RetryPolicy and ForwarderConfiguration clamp a huge Retry-After and ignore a malformed one")
    func publicDelays() throws {
        let request = NetworkRequest(method: .get, path: "messages/1")
        func failure(_ retryAfter: String) -> DepotError {
            DepotError(.status, "unavailable", status: 503, responseHeaders: ["Retry-After": retryAfter])
        }
        let policy = RetryPolicy(
            maximumAttempts: 100, baseDelay: .milliseconds(10), maximumDelay: .seconds(5), jitter: 0)
        let forwarder = ForwarderConfiguration(baseDelay: .milliseconds(10), maximumDelay: .seconds(5), jitter: 0)
        for value in ["1e999", "inf", "nan", "-1", "1.5"] {
            #expect(policy.delay(after: 1, request: request, error: failure(value)) == .milliseconds(10))
            #expect(forwarder.delay(afterAttempt: 1, error: failure(value)) == .milliseconds(10))
        }
        let huge = "99999999999999999999999"
        #expect(policy.delay(after: 1, request: request, error: failure(huge)) == .seconds(5))
        #expect(forwarder.delay(afterAttempt: Int.max, error: failure(huge)) == .seconds(5))
        #expect(forwarder.delay(afterAttempt: Int.max, error: failure("")) == .seconds(5))
        #expect(policy.delay(after: 99, request: request, error: failure("3")) == .seconds(3))
    }

    @Test(
        "a 503 with Retry-After: 1e999 is retried after the computed backoff, not a crash",
        arguments: Transport.available)
    func retryAfterInfinity(transport: Transport) async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.inject(.status(503, headers: ["Retry-After": "1e999"]))
            server.inject(.status(503, headers: ["Retry-After": "99999999999999999999999"]))
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(50))
            let session = transport.session(url: server.url, configuration: SessionConfiguration(retryPolicy: policy))
            // When
            let message = try await MessageRepository(store: session).read("1").timeout(seconds: 300).value
            // Then
            #expect(message.text == "a")
            #expect(server.requests.count == 3)
        }
    }
}
