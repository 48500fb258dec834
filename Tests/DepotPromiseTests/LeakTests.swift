import DepotPromise
import Testing

@Suite struct LeakTests {
    @Test("a settled chain is freed")
    func settledChainFreed() async throws {
        weak var weakStart: Promise<Int>?
        weak var weakMiddle: Promise<Int>?
        weak var weakEnd: Promise<Void>?
        do {
            let (start, resolver) = Promise<Int>.pending()
            let middle = start.then { Promise($0 + 1) }.map { $0 * 2 }
            let end = middle.done { _ in }
            weakStart = start
            weakMiddle = middle
            weakEnd = end
            resolver.fulfill(1)
            try await end.value
        }
        #expect(await eventually { weakStart == nil && weakMiddle == nil && weakEnd == nil })
    }

    @Test("a rejected and a cancelled chain are freed")
    func rejectedChainFreed() async throws {
        weak var weakRejected: Promise<Int>?
        weak var weakCancelled: Promise<Int>?
        do {
            let rejected = Promise<Int>(error: TestError()).map { $0 + 1 }
            weakRejected = rejected
            _ = await rejected.settledResult
            let (pending, _) = Promise<Int>.pending()
            let cancelled = pending.map { $0 + 1 }
            weakCancelled = cancelled
            cancelled.cancel()
            _ = await cancelled.settledResult
        }
        #expect(await eventually { weakRejected == nil && weakCancelled == nil })
    }
}
