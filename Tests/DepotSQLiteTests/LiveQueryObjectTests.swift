import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Observation
import Testing

/// `LiveQuery`, the `@Observable` face of `observe`.
@Suite struct LiveQueryObjectTests {
    @Test(
        "LiveQuery follows observe(), tells observation trackers, and stops on cancel", arguments: StoreKind.allCases)
    func followsAndCancels(kind: StoreKind) async throws {
        try await withOutboxFixture(kind) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "a", text: "one", author: "ann")).value
            let query = await messages.liveQuery(Criteria(["author": "ann"]))
            #expect(await eventuallyOnMain { query.value.map(\.id) == ["a"] && query.updates >= 1 })
            // An observation tracker hears of the next change
            let told = LockedValue(false)
            await MainActor.run {
                withObservationTracking {
                    _ = query.value
                } onChange: {
                    told.withLock { $0 = true }
                }
            }
            _ = try await messages.create(Message(id: "b", text: "two", author: "ann")).value
            _ = try await messages.create(Message(id: "c", text: "three", author: "bob")).value
            #expect(await eventuallyTrue { told.withLock { $0 } })
            #expect(await eventuallyOnMain { query.value.map(\.id).sorted() == ["a", "b"] })
            // After cancel the value stays as it was
            await query.cancel()
            #expect(await query.isLive == false)
            _ = try await messages.create(Message(id: "d", text: "four", author: "ann")).value
            try await Task.sleep(for: .milliseconds(100))
            #expect(await query.value.map(\.id).sorted() == ["a", "b"])
        }
    }

    @Test("liveQuery(id:): nil, the value, nil again once deleted")
    func byID() async throws {
        try await withOutboxFixture(.sqlite) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            let query = await messages.liveQuery(id: "1")
            #expect(await eventuallyOnMain { query.updates >= 1 && query.value == nil })
            _ = try await messages.create(Message(id: "1", text: "one")).value
            #expect(await eventuallyOnMain { query.value?.text == "one" })
            _ = try await messages.delete(id: "1").value
            #expect(await eventuallyOnMain { query.value == nil })
            await query.cancel()
        }
    }
}

/// Polls `condition` on the main actor for up to 30 s.
func eventuallyOnMain(_ condition: @escaping @MainActor @Sendable () -> Bool) async -> Bool {
    for _ in 0..<3000 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
