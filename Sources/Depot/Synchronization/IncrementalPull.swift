import Foundation

/// A pull that asks only for what changed since the last complete one.
///
/// ```swift
/// SynchronizationConfiguration(
///     pagination: .nextLink("next"),
///     incremental: IncrementalPull(parameter: "updated_after", cursor: .maximum(of: "updated_at"),
///                                  deletions: .flag("deleted")))
/// ```
///
/// The first pull is a full one; once it completes, its cursor is stored in the storage (per
/// collection and query) and the next pull sends `?<parameter>=<cursor>`. The boundary is
/// inclusive: the server may send the boundary rows again, which is harmless, while a row written in
/// the same instant is never missed. A pull that stops early (an error, a cancellation, a crash)
/// leaves the old cursor, so the next one repeats the gap instead of skipping it. The cursor moves
/// only past rows that were merged: a row the app cannot read (in
/// ``SynchronizationReport/unreadable``) holds a ``Cursor/maximum(of:)`` cursor at its stamp, and
/// keeps the old cursor of a ``Cursor/body(_:)`` or ``Cursor/header(_:)`` one, so the next pull
/// brings it again. Prune runs only after a full pull: an incremental one sees only what changed.
///
/// Writes racing a pull of several pages: one to a page not yet read is in this pull; one to a
/// page already read is in the next pull as long as the cursor stays below its stamp. With
/// ``Cursor/maximum(of:)`` the cursor is the largest stamp this pull merged, so a racing write to
/// a page already read can be missed when a later racing write to a page not yet read carries a
/// larger stamp, and a deletion racing a page-numbered pull shifts the rows after it by one.
/// Call ``SynchronizableRepository/resetPullCursor()`` now and then (or pull whole on a
/// schedule) when such races matter and the server offers no sync token.
public struct IncrementalPull: Sendable, Hashable {
    /// Where the cursor comes from.
    public enum Cursor: Sendable, Hashable {
        /// The largest value of a field among the merged entities: ISO-8601 dates (compared as
        /// dates, whatever their fractional digits) or numbers. An unreadable row caps it at its
        /// own value.
        case maximum(of: String)
        /// A key or JSON pointer in the body of the last page, e.g. `"/sync_token"`.
        case body(String)
        /// A response header of the last page, e.g. `"X-Sync-Token"`.
        case header(String)
    }

    /// How the server tells of deletions.
    public enum Deletions: Sendable, Hashable {
        /// Deleted entities come back with this field `true`: they are removed locally, unless the
        /// local record holds unsynced changes (counted as a conflict and kept).
        case flag(String)
        /// The server does not tell: only a full pull with `prune` removes them.
        case none
    }

    /// The query parameter the cursor goes in, e.g. `"updated_after"`.
    public var parameter: String
    /// Where the cursor comes from.
    public var cursor: Cursor
    /// How deletions arrive.
    public var deletions: Deletions
    /// The zone a ``Cursor/maximum(of:)`` stamp printed without an offset is in
    /// (`2026-11-25T16:50:01.285651`, as Python's `isoformat()` prints a naive datetime): such
    /// stamps are then compared as instants, also against stamps with an offset. Nil (the
    /// default): a stamp without an offset is compared as text. The cursor is sent as the server
    /// printed it.
    public var timeZone: TimeZone?

    /// Makes an incremental pull.
    public init(parameter: String, cursor: Cursor, deletions: Deletions = .none, timeZone: TimeZone? = nil) {
        self.parameter = parameter
        self.cursor = cursor
        self.deletions = deletions
        self.timeZone = timeZone
    }
}

/// Where pull cursors are kept: one record per collection and query, in a collection of their own.
enum PullCursors {
    static let collection = "__depot_pull_cursors"

    static func id(collection: String, query: [URLQueryItem]) -> String {
        collection + "?" + query.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
    }

    /// The larger of two cursor values: as dates when both read as ISO-8601, as numbers when both
    /// are numbers, else as text.
    static func larger(_ left: JSON?, _ right: JSON, timeZone: TimeZone? = nil) -> JSON {
        guard let left else { return right }
        return precedes(left, right, timeZone: timeZone) ?? false ? right : left
    }

    /// The smaller of two cursor values, compared as `larger` compares them; of two equal values
    /// or two that do not compare, `left`.
    static func smaller(_ left: JSON?, _ right: JSON, timeZone: TimeZone? = nil) -> JSON {
        guard let left else { return right }
        return precedes(right, left, timeZone: timeZone) ?? false ? right : left
    }

    /// Whether `left` comes strictly before `right`; nil when they do not compare (a number and a
    /// text, a null). A date without an offset is read in `timeZone` when one is given.
    static func precedes(_ left: JSON, _ right: JSON, timeZone: TimeZone? = nil) -> Bool? {
        switch (left, right) {
        case (.integer(let a), .integer(let b)): a < b
        case (.double(let a), .double(let b)): a < b
        case (.integer(let a), .double(let b)): Double(a) < b
        case (.double(let a), .integer(let b)): a < Double(b)
        case (.string(let a), .string(let b)):
            if let first = instant(a, timeZone: timeZone), let second = instant(b, timeZone: timeZone) {
                (first.seconds, first.fraction) < (second.seconds, second.fraction)
            } else {
                a < b
            }
        default: nil
        }
    }

    /// A cursor value as the query parameter's text.
    static func text(_ value: JSON) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .double(let number): String(number)
        default: nil
        }
    }

    /// An ISO-8601 date-time as whole seconds since 1970 and its fraction's digits (padded to
    /// nine), so that microseconds order correctly (Foundation's parser keeps milliseconds only).
    /// A date-time without an offset is read in `timeZone`; without one, it is no instant (nil).
    static func instant(_ text: String, timeZone: TimeZone? = nil) -> (seconds: Double, fraction: String)? {
        var whole = text
        var digits = ""
        if let dot = text.firstIndex(of: ".") {
            let afterDot = text.index(after: dot)
            let end = text[afterDot...].firstIndex { !$0.isNumber } ?? text.endIndex
            digits = String(text[afterDot..<end])
            whole = String(text[..<dot]) + String(text[end...])
        }
        guard digits.count <= 9 else { return nil }
        var date = ISO8601DateFormatter().date(from: whole)
        if date == nil, let timeZone {
            let zoneless = ISO8601DateFormatter()
            zoneless.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
            zoneless.timeZone = timeZone
            date = zoneless.date(from: whole)
        }
        guard let date else { return nil }
        return (date.timeIntervalSince1970, digits.padding(toLength: 9, withPad: "0", startingAt: 0))
    }
}
