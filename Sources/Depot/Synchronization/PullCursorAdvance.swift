import Foundation

/// Where one pull's cursor ends, page by page: it moves only past rows that were merged. A row
/// that was not merged (unreadable, or kept out by the record-write rule: a pending local change,
/// a write's answer newer than the page) holds a ``IncrementalPull/Cursor/maximum(of:)`` cursor at its stamp
/// (the inclusive boundary brings it again); a row without a stamp, or any unreadable row under a
/// server's token (``IncrementalPull/Cursor/body(_:)``, ``IncrementalPull/Cursor/header(_:)``),
/// keeps the old cursor.
struct PullCursorAdvance: Sendable {
    let cursor: IncrementalPull.Cursor?
    /// The largest stamp merged, or the server's latest token.
    private var reached: JSON?
    /// The smallest stamp of a row that could not be read.
    private var unreadableStamp: JSON?
    /// Whether an unreadable row cannot be placed: the old cursor stays.
    private var keepsOldCursor = false

    /// The zone of stamps printed without an offset (``IncrementalPull/timeZone``).
    var timeZone: TimeZone?

    init(_ cursor: IncrementalPull.Cursor?, timeZone: TimeZone? = nil) {
        self.cursor = cursor
        self.timeZone = timeZone
    }

    /// Takes one page: its elements, the positions of those that could not be read, its answer,
    /// and what its body holds at a location (a key or a JSON pointer).
    mutating func take(
        _ elements: [JSON], unreadable: [Int], response: NetworkResponse, body: (String) -> JSON?
    ) {
        switch cursor {
        case .maximum(let field)?:
            let skipped = Set(unreadable)
            for (index, element) in elements.enumerated() {
                let value = element[field].flatMap { $0 == .null ? nil : $0 }
                if skipped.contains(index) {
                    guard let value else {
                        keepsOldCursor = true
                        continue
                    }
                    unreadableStamp = PullCursors.smaller(unreadableStamp, value, timeZone: timeZone)
                } else if let value {
                    reached = PullCursors.larger(reached, value, timeZone: timeZone)
                }
            }
        case .body(let location)?:
            if !unreadable.isEmpty { keepsOldCursor = true }
            if let value = body(location), value != .null { reached = value }
        case .header(let name)?:
            if !unreadable.isEmpty { keepsOldCursor = true }
            if let value = response.header(name) { reached = .string(value) }
        case nil:
            break
        }
    }

    /// The cursor to store after a complete pull that started from `since`; nil to store none
    /// (keep the old one, or none).
    func final(since: String?) -> JSON? {
        guard cursor != nil, !keepsOldCursor else { return nil }
        if let unreadableStamp { return PullCursors.smaller(reached, unreadableStamp, timeZone: timeZone) }
        return reached ?? since.map(JSON.string)
    }
}
