import Depot
import Testing

/// Consecutive outbox entries for one entity fold into one where the server's end state is the
/// same, and never when the earlier entry may already have been applied.
@Suite struct CoalescingTests {
    static func entry(_ operation: OutboxOperation, _ payload: JSON?, attempts: Int = 0) -> OutboxEntry {
        OutboxEntry(
            sequence: 7, collection: "messages", entityID: "1", operation: operation, payload: payload,
            idempotencyKey: "key-7", attempts: attempts)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var first: OutboxOperation
        var firstPayload: JSON?
        var next: OutboxOperation
        var nextPayload: JSON?
        var expected: OutboxCoalescing
        var testDescription: String { "\(first) then \(next)" }
    }

    static let cases: [Case] = [
        Case(
            first: .create, firstPayload: ["id": "1", "text": "a"], next: .update,
            nextPayload: ["id": "1", "text": "b"],
            expected: .replace(entry(.create, ["id": "1", "text": "b"]))),
        Case(
            first: .create, firstPayload: ["id": "1", "text": "a", "tag": "x"], next: .patch,
            nextPayload: ["text": "b", "tag": nil],
            expected: .replace(entry(.create, ["id": "1", "text": "b", "tag": nil]))),
        Case(
            first: .update, firstPayload: ["id": "1", "text": "a", "author": "ann"], next: .patch,
            nextPayload: ["author": nil],
            expected: .replace(entry(.update, ["id": "1", "text": "a", "author": nil]))),
        Case(first: .create, firstPayload: ["id": "1"], next: .delete, nextPayload: nil, expected: .dropBoth),
        Case(
            first: .update, firstPayload: ["id": "1", "text": "a"], next: .delete, nextPayload: nil,
            expected: .replace(entry(.delete, nil))),
        Case(
            first: .patch, firstPayload: ["text": "a"], next: .delete, nextPayload: nil,
            expected: .replace(entry(.delete, nil))),
        Case(
            first: .update, firstPayload: ["id": "1", "text": "a"], next: .update,
            nextPayload: ["id": "1", "text": "b"],
            expected: .replace(entry(.update, ["id": "1", "text": "b"]))),
        Case(
            first: .update, firstPayload: ["id": "1", "text": "a"], next: .patch, nextPayload: ["text": "b"],
            expected: .replace(entry(.update, ["id": "1", "text": "b"]))),
        Case(
            first: .patch, firstPayload: ["text": "a", "meta": ["x": 1]], next: .patch,
            nextPayload: ["meta": ["y": 2], "tag": nil],
            expected: .replace(entry(.patch, ["text": "a", "meta": ["x": 1, "y": 2], "tag": nil]))),
        Case(
            first: .patch, firstPayload: ["meta": nil], next: .patch, nextPayload: ["meta": ["y": 2]], expected: .append
        ),
        Case(
            first: .patch, firstPayload: ["text": "a"], next: .update, nextPayload: ["id": "1", "text": "c"],
            expected: .replace(entry(.update, ["id": "1", "text": "c"]))),
        Case(
            first: .delete, firstPayload: nil, next: .create, nextPayload: ["id": "1", "text": "again"],
            expected: .append),
        Case(first: .create, firstPayload: ["id": "1"], next: .create, nextPayload: ["id": "1"], expected: .append),
        Case(first: .delete, firstPayload: nil, next: .patch, nextPayload: ["text": "b"], expected: .append),
    ]

    @Test("consecutive writes to one entity coalesce as the outbox rules say", arguments: cases)
    func rules(_ example: Case) {
        let pending = Self.entry(example.first, example.firstPayload)
        #expect(pending.coalescing(example.next, payload: example.nextPayload) == example.expected)
    }

    @Test("an entry already sent is never changed: the next write goes after it", arguments: OutboxOperation.allCases)
    func attemptedEntriesStay(next: OutboxOperation) {
        let sent = Self.entry(.create, ["id": "1", "text": "a"], attempts: 1)
        #expect(sent.coalescing(next, payload: next == .delete ? nil : ["text": "b"]) == .append)
    }

    @Test("a composed patch has the effect of the two patches in turn")
    func composedPatchEqualsSequence() {
        let target: JSON = ["text": "t", "meta": ["x": 0, "z": 9], "tag": "old", "n": 1]
        let first: JSON = ["text": "a", "meta": ["x": 1], "n": nil]
        let second: JSON = ["meta": ["y": 2, "z": nil], "tag": nil]
        guard case .replace(let merged) = Self.entry(.patch, first).coalescing(.patch, payload: second) else {
            Issue.record("two patches did not coalesce")
            return
        }
        let inTurn = target.applyingMergePatch(first).applyingMergePatch(second)
        #expect(target.applyingMergePatch(merged.payload ?? .null) == inTurn)
        #expect(merged.idempotencyKey == "key-7")
        #expect(merged.sequence == 7)
    }
}
