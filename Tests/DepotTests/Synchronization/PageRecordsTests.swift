import Foundation
import Testing

@testable import Depot

/// A pull page's objects made into records at once must give what one record at a time gives.
@Suite struct PageRecordsTests {
    private let raws: [JSONObject] = [
        ["id": "1", "text": "plain"],
        ["id": "2", "text": "a, comma and {braces} [brackets]", "extra": ["nested": [1, 2]]],
        ["id": "3", "text": "an \"escaped\" quote \\ and a backslash", "author": "ann"],
        ["id": "4", "text": "ünïcode ✓"],
    ]

    @Test("a page made into records at once gives each record exactly as one at a time")
    func sameAsOneByOne() throws {
        let batch = try #require(Synchronizer<Message>.encodedRecords(raws, collection: "messages"))
        let single = try raws.map { try Synchronizer<Message>.encodedRecord($0, collection: "messages") }
        #expect(batch == single)
    }

    @Test("a page with an element the entity cannot read is left to one record at a time")
    func unreadableElementFallsBack() {
        var broken = raws
        broken[2]["text"] = 42
        #expect(Synchronizer<Message>.encodedRecords(broken, collection: "messages") == nil)
    }

    @Test("a hand-mapped entity is made one record at a time")
    func handMapped() {
        #expect(Synchronizer<Note>.encodedRecords(raws, collection: "notes") == nil)
    }
}
