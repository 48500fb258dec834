import DepotPromise
import Testing

@Suite struct AsyncBridgeTests {
    @Test("await value returns the value or throws the error")
    func awaitValue() async throws {
        #expect(try await Promise(4).value == 4)
        await #expect(throws: TestError(id: 1)) { try await Promise<Int>(error: TestError(id: 1)).value }
    }

    @Test("Promise { try await … } fulfils or rejects from the async body")
    func asyncInit() async throws {
        let promise = Promise<Int> {
            try await Task.sleep(for: .milliseconds(1))
            return 9
        }
        #expect(try await promise.map { $0 + 1 }.value == 10)
        let failing = Promise<Int> { throw TestError(id: 2) }
        await #expect(throws: TestError(id: 2)) { try await failing.value }
    }

    @Test("settledResult never throws")
    func settledResult() async throws {
        let result = await Promise<Int>(error: TestError()).settledResult
        #expect((try? result.get()) == nil)
    }
}
