import DepotPromise
import Dispatch
import Foundation
import Testing

/// Promises/A+ 2.1: a promise is pending, fulfilled or rejected; once settled it never changes.
@Suite struct APlusStates {
    @Test("2.1.1 a pending promise may settle either way")
    func pendingMaySettle() async throws {
        let (fulfilled, fulfil) = Promise<Int>.pending()
        let (rejected, reject) = Promise<Int>.pending()
        #expect(fulfilled.isPending && rejected.isPending)
        fulfil.fulfill(1)
        reject.reject(TestError())
        #expect(fulfilled.isFulfilled)
        #expect(rejected.isRejected)
    }

    @Test("2.1.2 a fulfilled promise keeps its value: later fulfil or reject is ignored")
    func fulfilledStays() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.fulfill(1)
        resolver.fulfill(2)
        resolver.reject(TestError())
        #expect(try await promise.value == 1)
    }

    @Test("2.1.3 a rejected promise keeps its reason: later fulfil or reject is ignored")
    func rejectedStays() async throws {
        let (promise, resolver) = Promise<Int>.pending()
        resolver.reject(TestError(id: 1))
        resolver.reject(TestError(id: 2))
        resolver.fulfill(3)
        await #expect(throws: TestError(id: 1)) { try await promise.value }
    }

    @Test("settling once holds under a race of many threads")
    func settlesOnceUnderRace() async throws {
        for _ in 0..<200 {
            let (promise, resolver) = Promise<Int>.pending()
            let runs = Counter()
            promise.done { _ in runs.increment() }
            DispatchQueue.concurrentPerform(iterations: 8) { resolver.fulfill($0) }
            _ = try await promise.value
            #expect(await eventually { runs.value == 1 })
            #expect(runs.value == 1)
        }
    }
}
