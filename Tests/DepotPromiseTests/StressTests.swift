import DepotPromise
import Dispatch
import Testing

/// Chains of 100,000 steps: a settle or cancel that recursed once per step would need a stack
/// frame (over 100 bytes: the step's closure, the promise, its lock) per step, and overflows an
/// 8 MB thread stack before 100,000. The chains were 1,000,000 steps (5.7 s of the README suite).
@Suite struct StressTests {
    @Test("a chain of 100,000 map steps settles without stack overflow on fulfilment")
    func longChainFulfilled() async throws {
        let queue = makeQueue("map-chain")
        let (start, resolver) = Promise<Int>.pending()
        var tail = start
        for _ in 0..<100_000 { tail = tail.map(on: queue) { $0 + 1 } }
        resolver.fulfill(0)
        #expect(try await tail.value == 100_000)
    }

    @Test("a chain of 100,000 then steps settles without stack overflow on fulfilment")
    func longThenChain() async throws {
        let queue = makeQueue("then-chain")
        let (start, resolver) = Promise<Int>.pending()
        var tail = start
        for _ in 0..<100_000 { tail = tail.then(on: queue) { Promise($0 + 1) } }
        resolver.fulfill(0)
        #expect(try await tail.value == 100_000)
    }

    @Test("a chain of 100,000 steps propagates a rejection without stack overflow")
    func longChainRejected() async throws {
        let (start, resolver) = Promise<Int>.pending()
        var tail = start
        let queue = makeQueue("rejected-chain")
        for index in 0..<100_000 {
            tail = index % 2 == 0 ? tail.map(on: queue) { $0 + 1 } : tail.then(on: queue) { Promise($0) }
        }
        resolver.reject(TestError(id: 1))
        await #expect(throws: TestError(id: 1)) { try await tail.value }
    }

    @Test("cancelling the tail of a 100,000-step chain does not overflow the stack")
    func longChainCancelled() async throws {
        let (start, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        var tail = start
        for _ in 0..<100_000 { tail = tail.map { $0 + 1 } }
        tail.cancel()
        #expect(start.isCancelled)
        await #expect { try await tail.value } throws: { $0.isDepotCancellation }
    }

    @Test("20,000 promises resolved from many threads while callbacks attach: each callback runs once")
    func concurrentResolution() async throws {
        let count = 20_000  // 20 chunks of 1,000 race on each queue (50,000 cost the README suite more CPU)
        let pendings = (0..<count).map { _ in Promise<Int>.pending() }
        let runs = Counter()
        let group = DispatchGroup()
        let attach = DispatchQueue(label: "attach", attributes: .concurrent)
        let resolve = DispatchQueue(label: "resolve", attributes: .concurrent)
        let callbacks = DispatchQueue(label: "callbacks", attributes: .concurrent)
        for chunk in stride(from: 0, to: count, by: 1_000) {
            attach.async(group: group) {
                for index in chunk..<chunk + 1_000 {
                    pendings[index].promise.done(on: callbacks) { _ in runs.increment() }
                }
            }
            resolve.async(group: group) {
                for index in chunk..<chunk + 1_000 { pendings[index].resolver.fulfill(index) }
            }
        }
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        #expect(await eventually(seconds: 30) { runs.value == count })
        try await Task.sleep(for: .milliseconds(50))
        #expect(runs.value == count)
    }
}
