import Depot
import Testing

@Suite struct UnsyncedSummaryTests {
    @Test(
        "a summary names what is there, and an empty one refuses nothing",
        arguments: [
            (UnsyncedSummary(), "nothing unsynced"),
            (UnsyncedSummary(pendingEntries: 1), "1 pending write"),
            (UnsyncedSummary(rejectedEntries: 2, unsyncedRecords: 1), "2 rejected writes, 1 unsynced record"),
            (
                UnsyncedSummary(pendingEntries: 3, rejectedEntries: 1, unsyncedRecords: 4),
                "3 pending writes, 1 rejected write, 4 unsynced records"
            ),
        ])
    func description(summary: UnsyncedSummary, expected: String) {
        #expect(summary.description == expected)
        let refusal = summary.erasureRefusal(of: "the store")
        #expect((refusal == nil) == summary.isEmpty)
        if let refusal {
            #expect(refusal.code == .unsyncedWrites)
            #expect(
                refusal.message.hasPrefix("erasing the store would lose what the server has not accepted: \(expected);")
            )
        }
    }
}
