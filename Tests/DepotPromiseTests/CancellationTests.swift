import DepotPromise
import Testing

@Suite struct CancellationTests {
    @Test("cancel rejects a pending promise, runs its cancel handler, and reaches chained promises")
    func cancelPending() async throws {
        let stopped = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { stopped.increment() }
        let chained = promise.map { $0 + 1 }.map { $0 * 2 }
        promise.cancel()
        await #expect { try await chained.value } throws: { ($0 as? DepotError)?.code == .cancelled }
        #expect(stopped.value == 1)
        #expect(promise.isCancelled)
        resolver.fulfill(1)  // ignored
        #expect(promise.isCancelled)
    }

    @Test("cancelling the end of a chain cancels the work at its start")
    func cancelTail() async throws {
        let stopped = Counter()
        let (start, resolver) = Promise<Int>.pending()
        resolver.onCancel { stopped.increment() }
        let tail = start.map { $0 + 1 }.then { Promise($0) }
        tail.cancel()
        #expect(stopped.value == 1)
        #expect(start.isCancelled && tail.isCancelled)
    }

    @Test("cancelling a then reaches the promise its body returned")
    func cancelAdopted() async throws {
        let stopped = Counter()
        let (inner, innerResolver) = Promise<Int>.pending()
        innerResolver.onCancel { stopped.increment() }
        let bodyRan = Counter()
        let outer = Promise(1).then { _ in
            bodyRan.increment()
            return inner
        }
        #expect(await eventually { bodyRan.value == 1 })
        try await Task.sleep(for: .milliseconds(20))  // the node adopts `inner` right after its body returns
        outer.cancel()
        #expect(stopped.value == 1)
        await #expect { try await outer.value } throws: { $0.isDepotCancellation }
    }

    @Test("cancel does nothing to a settled promise")
    func cancelSettled() async throws {
        let promise = Promise(3)
        promise.cancel()
        #expect(try await promise.value == 3)
    }

    @Test("catch can skip cancellations")
    func catchSkipsCancellation() async throws {
        let seen = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        defer { withExtendedLifetime(resolver) {} }
        let all = promise.catch { _ in seen.increment() }
        let skipping = promise.catch(policy: .allErrorsExceptCancellation) { _ in seen.increment() }
        promise.cancel()
        await all.value
        await skipping.value
        #expect(seen.value == 1)
    }

    @Test("cancelling the awaiting task cancels the promise and the work underneath")
    func taskCancellation() async throws {
        let stopped = Counter()
        let (promise, resolver) = Promise<Int>.pending()
        resolver.onCancel { stopped.increment() }
        let task = Task { try await promise.value }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        await #expect { try await task.value } throws: { $0.isDepotCancellation }
        #expect(stopped.value == 1)
        #expect(promise.isCancelled)
    }

    @Test("cancelling Promise { try await … } cancels its task")
    func asyncInitCancellation() async throws {
        let sawCancellation = Counter()
        let promise = Promise<Int> {
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                sawCancellation.increment()
                throw error
            }
            return 1
        }
        try await Task.sleep(for: .milliseconds(20))
        promise.cancel()
        await #expect { try await promise.value } throws: { $0.isDepotCancellation }
        #expect(await eventually { sawCancellation.value == 1 })
    }
}

@Suite struct TimeoutOrderTests {
    @Test("timeout cancels the work before it rejects: the work's cancel handler has run when the timeout is seen")
    func cancelsFirst() async {
        for _ in 0..<50 {
            let (work, resolver) = Promise<Int>.pending()
            let cancelled = LockedValue(false)
            resolver.onCancel { cancelled.withLock { $0 = true } }
            let timed = work.timeout(seconds: 0.001)
            await #expect { try await timed.value } throws: { ($0 as? DepotError)?.code == .timeout }
            #expect(cancelled.withLock { $0 })
        }
    }

    @Test("timeout takes hostile durations without trapping")
    func hostileDurations() async throws {
        let (forever, foreverResolver) = Promise<Int>.pending()
        let capped = forever.timeout(seconds: .infinity)
        let (work, resolver) = Promise<Int>.pending()
        let zero = work.timeout(seconds: .nan)
        await #expect { try await zero.value } throws: { ($0 as? DepotError)?.code == .timeout }
        #expect(capped.isPending)
        foreverResolver.fulfill(1)
        #expect(try await capped.value == 1)
        withExtendedLifetime(resolver) {}
    }
}
