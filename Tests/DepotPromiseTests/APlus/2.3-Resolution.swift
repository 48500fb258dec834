import DepotPromise
import Dispatch
import Foundation
import Testing

/// Promises/A+ 2.3: the resolution procedure, as far as it applies to typed Swift promises —
/// `then` adopts the state of the promise its body returns.
@Suite struct APlusResolution {
    @Test("2.3.1 a then body returning the promise it produces rejects instead of hanging")
    func selfResolution() async throws {
        let (start, resolver) = Promise<Int>.pending()
        let box = Box()
        let chained = start.then { _ in box.promise! }
        box.promise = chained
        resolver.fulfill(1)
        await #expect(throws: DepotError.self) { try await chained.value }
    }

    @Test("2.3.2 adopts a pending promise's eventual value")
    func adoptsPendingFulfilment() async throws {
        let (inner, resolver) = Promise<String>.pending()
        let outer = Promise(1).then { _ in inner }
        try await Task.sleep(for: .milliseconds(10))
        #expect(outer.isPending)
        resolver.fulfill("adopted")
        #expect(try await outer.value == "adopted")
    }

    @Test("2.3.2 adopts a pending promise's eventual rejection")
    func adoptsPendingRejection() async throws {
        let (inner, resolver) = Promise<String>.pending()
        let outer = Promise(1).then { _ in inner }
        resolver.reject(TestError(id: 2))
        await #expect(throws: TestError(id: 2)) { try await outer.value }
    }

    @Test("2.3.2 adopts an already-settled promise")
    func adoptsSettled() async throws {
        #expect(try await Promise(1).then { Promise($0 + 1) }.value == 2)
        let rejected = Promise(1).then { _ in Promise<Int>(error: TestError(id: 5)) }
        await #expect(throws: TestError(id: 5)) { try await rejected.value }
    }
}

/// Lets a closure refer to the promise it helps make.
final class Box: Sendable {
    private let slot = LockedValue<Promise<Int>?>(nil)
    var promise: Promise<Int>? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}
