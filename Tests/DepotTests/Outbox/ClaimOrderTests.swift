import Foundation
import Testing

@testable import Depot

/// Regression test for "two senders send one entity's writes out of order": a later entry of an
/// entity is never claimed while an earlier one is held by another sender, or left out.
@Suite struct ClaimOrderTests {
    @Test("an entity's later entry is claimed only together with every earlier one")
    func laterEntryWaitsForEarlier() async throws {
        // Given: two writes of entity 1 (not folded: the first was sent once) and one of entity 2
        let storage = InMemoryStorage()
        let (first, second, other) = try await storage.transaction { tx in
            let first = try #require(
                try tx.recordOutbox(
                    collection: "notes", entityID: "1", operation: .update, payload: ["text": "a"],
                    idempotencyKey: "k1"))
            let second = try #require(
                try tx.recordOutbox(collection: "notes", entityID: "1", operation: .patch, payload: ["text": "b"]))
            let other = try #require(
                try tx.recordOutbox(collection: "notes", entityID: "2", operation: .update, payload: ["text": "c"]))
            return (first.sequence, second.sequence, other.sequence)
        }

        // When: one sender holds the first entry, and another asks for the second and entity 2's
        let (holder, held) = try await OutboxClaim.take([first], in: storage)
        let (_, taken) = try await OutboxClaim.take([second, other], in: storage)

        // Then: the second sender gets entity 2's entry only; entity 1's second entry is untouched
        #expect(held.map(\.sequence) == [first])
        #expect(taken.map(\.sequence) == [other])
        let untouched = try #require(try await storage.outbox(OutboxQuery(entityID: "1")).last)
        #expect(untouched.sequence == second && untouched.lease == nil && untouched.attempts == 0)

        // When: the holder lets go; a sender asking for the second alone still gets nothing
        try await holder.releaseAll()
        #expect(try await OutboxClaim.take([second], in: storage).entries.isEmpty)

        // Then: asked together, both go, in order
        #expect(try await OutboxClaim.take([first, second], in: storage).entries.map(\.sequence) == [first, second])
    }
}
