import DepotPromise
import Dispatch
import Testing

@Suite struct ChainingTests {
    @Test("then, map, get, done compose in order")
    func compose() async throws {
        let log = EventLog()
        try await Promise(2)
            .then { Promise($0 * 10) }
            .map { $0 + 1 }
            .get { log.append("get \($0)") }
            .done { log.append("done \($0)") }
            .value
        #expect(log.all == ["get 21", "done 21"])
    }

    @Test("recover turns an error into a value (a Guarantee) or a new promise")
    func recover() async throws {
        let guarantee: Guarantee<Int> = Promise<Int>(error: TestError()).recover { _ in 42 }
        #expect(await guarantee.value == 42)
        let promise = Promise<Int>(error: TestError(id: 1)).recover { error -> Promise<Int> in
            guard error as? TestError == TestError(id: 1) else { throw error }
            return Promise(7)
        }
        #expect(try await promise.value == 7)
        let rethrown = Promise<Int>(error: TestError(id: 2)).recover { error -> Promise<Int> in throw TestError(id: 3) }
        await #expect(throws: TestError(id: 3)) { try await rethrown.value }
    }

    @Test("ensure runs on both outcomes and passes the outcome on")
    func ensure() async throws {
        let runs = Counter()
        #expect(try await Promise(1).ensure { runs.increment() }.value == 1)
        let failed = Promise<Int>(error: TestError()).ensure { runs.increment() }
        await #expect(throws: TestError.self) { try await failed.value }
        #expect(runs.value == 2)
    }

    @Test("catch then finally: finally runs after catch")
    func catchFinally() async throws {
        let log = EventLog()
        let (promise, resolver) = Promise<Int>.pending()
        promise
            .done { _ in log.append("done") }
            .catch { _ in log.append("catch") }
            .finally { log.append("finally") }
        resolver.reject(TestError())
        #expect(await eventually { log.all.count == 2 })
        #expect(log.all == ["catch", "finally"])
    }

    @Test("Promise { resolver in } rejects when the body throws")
    func bodyThrows() async throws {
        let promise = Promise<Int> { _ in throw TestError(id: 8) }
        await #expect(throws: TestError(id: 8)) { try await promise.value }
    }

    @Test("a resolver released without settling rejects its promise as abandoned")
    func abandonedResolver() async throws {
        let promise = Promise<Int> { _ in }
        await #expect { try await promise.value } throws: { ($0 as? DepotError)?.code == .abandoned }
    }

    @Test("a guarantee whose fulfil function is released uncalled stays pending, and awaiting it never traps")
    func abandonedGuaranteeStaysPending() async throws {
        // Given a guarantee whose fulfil function is dropped without being called
        let guarantee = Guarantee<Int> { _ in }
        let mapped = guarantee.map { $0 + 1 }
        // When a task awaits it (before the fix: a trap, "a Guarantee was rejected: … abandoned")
        let waiter = Task { await mapped.value }
        // Then it stays pending, as does everything chained on it, and cancelling the waiter
        // neither settles it nor crashes the process.
        await Task.yield()
        #expect(guarantee.isPending && guarantee.result == nil)
        #expect(mapped.isPending)
        #expect(guarantee.promise.result == nil)
        waiter.cancel()
        #expect(guarantee.isPending)
    }

    @Test("observability: isPending, isFulfilled, isRejected, result")
    func observability() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        #expect(promise.isPending && !promise.isFulfilled && !promise.isRejected && promise.result == nil)
        resolver.fulfill(3)
        #expect(!promise.isPending && promise.isFulfilled && !promise.isRejected)
        #expect(try promise.result?.get() == 3)
        let rejected = Promise<Int>(error: TestError())
        #expect(rejected.isRejected && !rejected.isFulfilled)
    }

    @Test("consecutive steps on one serial queue run in one hop, in order")
    func sameQueueSteps() async throws {
        let queue = makeQueue("steps")
        let log = EventLog()
        let (promise, resolver) = Promise<Int>.pending()
        let end =
            promise
            .map(on: queue) {
                log.append("a"); return $0 + 1
            }
            .map(on: queue) {
                log.append("b"); return $0 + 1
            }
            .map(on: queue) {
                log.append("c"); return $0 + 1
            }
        // Something queued behind the first hop must run after all three steps.
        resolver.fulfill(0)
        queue.async { log.append("later block") }
        #expect(try await end.value == 3)
        #expect(await eventually { log.all.count == 4 })
        #expect(log.all.prefix(3) == ["a", "b", "c"])
    }
}
