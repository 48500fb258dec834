import Foundation
import Testing

@testable import Depot

/// Where a pull's cursor ends when some rows could not be read.
@Suite struct PullCursorAdvanceTests {
    private let answer = NetworkResponse(status: 200, headers: ["X-Sync-Token": "token-2"])

    private func rows(_ stamps: [JSON?]) -> [JSON] {
        stamps.enumerated().map { index, stamp in
            var row: JSONObject = ["id": .string(String(index))]
            if let stamp { row["updated_at"] = stamp }
            return .object(row)
        }
    }

    @Test("a largest-stamp cursor moves past merged rows only, and stops at the first unreadable row's stamp")
    func maximum() {
        var advance = PullCursorAdvance(.maximum(of: "updated_at"))
        advance.take(rows([1, 2, 3]), unreadable: [], response: answer) { _ in nil }
        advance.take(rows([4, 7, 5, 6]), unreadable: [2], response: answer) { _ in nil }
        #expect(advance.final(since: "1") == 5)
        var clean = PullCursorAdvance(.maximum(of: "updated_at"))
        clean.take(rows([4, 7, 5, 6]), unreadable: [], response: answer) { _ in nil }
        #expect(clean.final(since: "1") == 7)
        var dates = PullCursorAdvance(.maximum(of: "updated_at"))
        dates.take(
            rows(["2026-01-01T00:00:02Z", "2026-01-01T00:00:01.5Z", "2026-01-01T00:00:03Z"]), unreadable: [1],
            response: answer
        ) { _ in nil }
        #expect(dates.final(since: nil) == "2026-01-01T00:00:01.5Z")
    }

    @Test("an unreadable row without a stamp, or under a server's token, keeps the old cursor")
    func keepsOldCursor() {
        var unstamped = PullCursorAdvance(.maximum(of: "updated_at"))
        unstamped.take(rows([1, nil, 3]), unreadable: [1], response: answer) { _ in nil }
        #expect(unstamped.final(since: "1") == nil)
        var header = PullCursorAdvance(.header("X-Sync-Token"))
        header.take(rows([nil]), unreadable: [], response: answer) { _ in nil }
        #expect(header.final(since: nil) == "token-2")
        header.take(rows([nil]), unreadable: [0], response: answer) { _ in nil }
        #expect(header.final(since: nil) == nil)
        var body = PullCursorAdvance(.body("/sync_token"))
        body.take(rows([nil, nil]), unreadable: [1], response: answer) { _ in "token-3" }
        #expect(body.final(since: "token-1") == nil)
    }

    @Test("a pull with nothing new keeps its cursor; a full pull has none to keep")
    func nothingNew() {
        var advance = PullCursorAdvance(.maximum(of: "updated_at"))
        advance.take([], unreadable: [], response: answer) { _ in nil }
        #expect(advance.final(since: "9") == "9")
        #expect(PullCursorAdvance(nil).final(since: "9") == nil)
    }
}
