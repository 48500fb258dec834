import DepotPromise
import Dispatch
import Testing

@Suite struct CombinatorTests {
    @Test("when(fulfilled:) keeps the input order, whatever the completion order")
    func whenFulfilledOrder() async throws {
        let pendings = (0..<5).map { _ in Promise<Int>.pending() }
        let all = when(fulfilled: pendings.map(\.promise))
        for (index, pending) in pendings.enumerated().reversed() { pending.resolver.fulfill(index) }
        #expect(try await all.value == [0, 1, 2, 3, 4])
        #expect(try await when(fulfilled: [Promise<Int>]()).value == [])
    }

    @Test("when(fulfilled:) rejects as soon as one input rejects")
    func whenFulfilledRejects() async throws {
        let (slow, resolver) = Promise<Int>.pending()
        let all = when(fulfilled: [slow, Promise(error: TestError(id: 1))])
        await #expect(throws: TestError(id: 1)) { try await all.value }
        #expect(slow.isPending)
        withExtendedLifetime(resolver) {}
    }

    @Test("when(fulfilled:) with 2, 3 and 4 promises of different types")
    func whenTuples() async throws {
        let pair = try await when(fulfilled: Promise(1), Promise("a")).value
        #expect(pair.0 == 1 && pair.1 == "a")
        let triple = try await when(fulfilled: Promise(1), Promise("a"), Promise(true)).value
        #expect(triple.2 == true)
        let quad = try await when(fulfilled: Promise(1), Promise("a"), Promise(true), Promise(2.5)).value
        #expect(quad.3 == 2.5)
        let failed = when(fulfilled: Promise(1), Promise<String>(error: TestError(id: 2)))
        await #expect(throws: TestError(id: 2)) { try await failed.value }
    }

    @Test("when(resolved:) waits for all and reports every outcome")
    func whenResolved() async throws {
        let results = await when(resolved: [Promise(1), Promise(error: TestError()), Promise(3)]).value
        #expect(results.count == 3)
        #expect(try results[0].get() == 1)
        #expect((try? results[1].get()) == nil)
        #expect(try results[2].get() == 3)
    }

    @Test("race settles like the first to settle")
    func raceFirst() async throws {
        let (never, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let winner = race(never, after(seconds: 0.01).promise.map { 5 })
        #expect(try await winner.value == 5)
        let loser = race(never, Promise(error: TestError(id: 6)))
        await #expect(throws: TestError(id: 6)) { try await loser.value }
    }

    @Test("race over no promises rejects with .invalidRequest instead of crashing")
    func raceOfNone() async throws {
        let empty: [Promise<Int>] = []
        let error = await #expect(throws: DepotError.self) { try await race(empty).value }
        #expect(error?.code == .invalidRequest)
    }

    @Test("after waits at least the given time")
    func afterWaits() async throws {
        let start = ContinuousClock.now
        await after(.milliseconds(50)).value
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test("timeout rejects with .timeout and cancels the slow work")
    func timeout() async throws {
        let cancelled = Counter()
        let (slow, resolver) = Promise<Int>.pending()
        resolver.onCancel { cancelled.increment() }
        let timed = slow.timeout(seconds: 0.02)
        await #expect { try await timed.value } throws: { ($0 as? DepotError)?.code == .timeout }
        // The timer rejects `timed` and then cancels `slow` on its own thread: wait for it rather
        // than assume it already happened (this raced under ThreadSanitizer).
        #expect(await eventually { cancelled.value == 1 })
        #expect(await eventually { slow.isCancelled })
        #expect(cancelled.value == 1, "the cancel handler runs once")
        #expect(try await Promise(1).timeout(seconds: 1).value == 1)
    }

    @Test("attempt retries until success, at most maximumRetryCount times")
    func attemptRetries() async throws {
        let calls = Counter()
        let value = try await attempt(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1)) { () -> Promise<Int> in
            calls.increment()
            return calls.value < 3 ? Promise(error: TestError()) : Promise(calls.value)
        }.value
        #expect(value == 3)
        let failing = Counter()
        let exhausted = attempt(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(1)) { () -> Promise<Int> in
            failing.increment()
            return Promise(error: TestError(id: failing.value))
        }
        await #expect(throws: TestError(id: 3)) { try await exhausted.value }
        #expect(failing.value == 3)
    }

    @Test("attempt never retries a cancellation")
    func attemptSkipsCancellation() async throws {
        let calls = Counter()
        let result = attempt(maximumRetryCount: 5, delayBeforeRetry: .milliseconds(1)) { () -> Promise<Int> in
            calls.increment()
            return Promise(error: DepotError.cancelled)
        }
        await #expect { try await result.value } throws: { $0.isDepotCancellation }
        #expect(calls.value == 1)
    }
}

@Suite struct BoundedDelayTests {
    @Test("after(seconds:) takes NaN, negatives and infinity without trapping")
    func hostileDelays() async {
        // NaN and negatives fire at once; infinity is capped, not a trap.
        await after(seconds: .nan).value
        await after(seconds: -1).value
        _ = after(seconds: .infinity)
        _ = after(seconds: 1e300)
        _ = after(.seconds(Int64.max))
        #expect(boundedDelay(.infinity) == maximumDispatchDelay && boundedDelay(.nan) == 0)
    }

    @Test("Duration.nanoseconds saturates instead of trapping")
    func nanosecondsSaturate() {
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
    }
}
