import DepotPromise
import Dispatch
import Testing

/// Callbacks of promises that settle together toward one queue share its drainer blocks; these
/// pin down what sharing must not change.
@Suite struct MailboxTests {
    @Test("callbacks posted to a serial queue from one thread run in the order they were posted")
    func postedOrder() async throws {
        let queue = makeQueue("posted-order")
        let pendings = (0..<1_000).map { _ in Promise<Int>.pending() }
        let log = LockedValue<[Int]>([])
        let steps = pendings.map { pending in
            pending.promise.done(on: queue) { value in log.withLock { $0.append(value) } }
        }
        for (index, pending) in pendings.enumerated() { pending.resolver.fulfill(index) }
        for step in steps { try await step.value }
        #expect(log.withLock { $0 } == Array(0..<1_000))
    }

    @Test("a callback that blocks on a concurrent queue does not hold back one settled with it")
    func blockingCallback() async throws {
        let queue = makeQueue("blocking", concurrent: true)
        let (first, firstResolver) = Promise<Int>.pending()
        let (second, secondResolver) = Promise<Int>.pending()
        let semaphore = DispatchSemaphore(value: 0)
        // The first callback waits for the second; sharing one drainer without handing the rest
        // to another block would make it wait out the whole timeout.
        let waited = first.map(on: queue) { _ in semaphore.wait(timeout: .now() + 60) == .success }
        let signalled = second.done(on: queue) { _ in semaphore.signal() }
        firstResolver.fulfill(1)
        secondResolver.fulfill(2)
        #expect(try await waited.value)
        try await signalled.value
    }

    @Test("a callback that blocks on a concurrent queue holds back none of the callbacks taken in its batch")
    func blockingCallbackInBatch() async throws {
        let queue = makeQueue("blocking-batch", concurrent: true)
        let pendings = (0..<64).map { _ in Promise<Int>.pending() }
        let semaphore = DispatchSemaphore(value: 0)
        let ran = Counter()
        // All settle before a drainer can take them one by one, so they share a batch; the first
        // waits for the last, which a helper must steal from the batch.
        let waited = pendings[0].promise.map(on: queue) { _ in semaphore.wait(timeout: .now() + 60) == .success }
        let others = pendings.dropFirst().map { pending in
            pending.promise.done(on: queue) { value in
                ran.increment()
                if value == 63 { semaphore.signal() }
            }
        }
        for (index, pending) in pendings.enumerated() { pending.resolver.fulfill(index) }
        #expect(try await waited.value)
        for step in others { try await step.value }
        #expect(ran.value == 63)
    }

    @Test("two handlers of a chained step on the default queue: one that waits for the other is not stranded")
    func handlerMadeReadyInDrainer() async throws {
        // Given: a step that settles inside the drainer running its `then` body, so both of its
        // handlers are made ready there, for the default (concurrent) queue
        let (gate, opener) = Promise<Int>.pending()
        let step = gate.then { Promise($0 + 1) }
        let semaphore = DispatchSemaphore(value: 0)
        let waited = step.map { _ in semaphore.wait(timeout: .now() + 60) == .success }
        let signalled = step.done { _ in semaphore.signal() }

        // When
        opener.fulfill(1)

        // Then: the second handler ran while the first waited for it
        #expect(try await waited.value)
        try await signalled.value
    }

    @Test("callbacks for several queues, settled together, each run once on their own queue")
    func severalQueues() async throws {
        let queues = (0..<4).map { makeQueue("several-\($0)", concurrent: $0 % 2 == 1) }
        let pendings = (0..<400).map { _ in Promise<Int>.pending() }
        let wrongQueue = Counter()
        let steps = pendings.enumerated().map { index, pending in
            let label = "several-\(index % 4)"
            return pending.promise.map(on: queues[index % 4]) { value in
                if DispatchQueue.getSpecific(key: queueKey) != label { wrongQueue.increment() }
                return value
            }
        }
        for (index, pending) in pendings.enumerated() { pending.resolver.fulfill(index) }
        for (index, step) in steps.enumerated() { #expect(try await step.value == index) }
        #expect(wrongQueue.value == 0)
    }
}
