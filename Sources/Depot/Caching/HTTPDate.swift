import Foundation

/// HTTP dates (RFC 9110 §5.6.7) read by hand: IMF-fixdate and the two obsolete forms, RFC 850 and
/// asctime. No `DateFormatter`, so no locale, time zone or leniency surprises, and bounded work.
enum HTTPDate {
    /// The longest text tried (an RFC 850 date with the longest day name is 33 bytes).
    static let maximumLength = 64

    /// The date `text` spells, or nil when it is none of the three forms or names no real instant
    /// (day 31 of a 30-day month, hour 24).
    ///
    /// - Parameters:
    ///   - text: The field value, surrounding spaces and tabs allowed.
    ///   - now: Resolves an RFC 850 two-digit year: one that would be more than 50 years in the
    ///     future is the most recent past year with those digits (RFC 9110 §5.6.7).
    static func parse<Text: StringProtocol>(_ text: Text, now: Date = Date()) -> Date? {
        guard text.utf8.count <= maximumLength else { return nil }
        let bytes = Array(CacheHeaders.trimmingOWS(Array(text.utf8)))
        // Words split on spaces, with a comma ending the day name of the first two forms.
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else { return asctime(bytes) }
        let dayName = Array(bytes[..<comma])
        let rest = Array(bytes[(comma + 1)...])
        if dayNames.contains(dayName) { return imfFixdate(rest) }
        if longDayNames.contains(dayName) { return rfc850(rest, now: now) }
        return nil
    }

    /// ` 06 Nov 1994 08:49:37 GMT` (after the day name and comma).
    static func imfFixdate(_ bytes: [UInt8]) -> Date? {
        let words = bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard words.count == 6, words[0].isEmpty, words[1].count == 2, words[3].count == 4,
            Array(words[5]) == Array("GMT".utf8),
            let day = number(words[1]), let month = month(words[2]), let year = number(words[3]),
            let time = timeOfDay(words[4])
        else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// ` 06-Nov-94 08:49:37 GMT` (after the long day name and comma).
    static func rfc850(_ bytes: [UInt8], now: Date) -> Date? {
        let words = bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard words.count == 4, words[0].isEmpty, Array(words[3]) == Array("GMT".utf8) else { return nil }
        let parts = words[1].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 2, parts[2].count == 2,
            let day = number(parts[0]), let month = month(parts[1]), let twoDigits = number(parts[2]),
            let time = timeOfDay(words[2])
        else { return nil }
        // The year with those last two digits in the century that is not more than 50 years ahead.
        let currentYear = yearOf(now)
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return date(year: year, month: month, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994` (the day padded with a space, or two digits).
    static func asctime(_ bytes: [UInt8]) -> Date? {
        let words = bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard words.count == 5, dayNames.contains(Array(words[0])), (1...2).contains(words[2].count),
            words[4].count == 4,
            let month = month(words[1]), let day = number(words[2]), let time = timeOfDay(words[3]),
            let year = number(words[4])
        else { return nil }
        // Only the one-digit day may be padded: "Nov  6", never "Nov   6" or "Nov  16".
        let spaces = bytes.count - words.reduce(0) { $0 + $1.count }
        guard spaces == (words[2].count == 1 ? 5 : 4) else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// `08:49:37` as seconds into the day; a leap second (60) is read as 59.
    static func timeOfDay(_ bytes: ArraySlice<UInt8>) -> Int? {
        let parts = bytes.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 }),
            let hour = number(parts[0]), let minute = number(parts[1]), let second = number(parts[2]),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + min(second, 59)
    }

    /// The instant, or nil for a day the month does not have.
    static func date(year: Int, month: Int, day: Int, time: Int) -> Date? {
        guard (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + time
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian year `date` falls in (UTC).
    static func yearOf(_ date: Date) -> Int {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, abs(interval) < 1e15 else { return 1970 }
        var year = 1970 + Int((interval / 86_400 / 365.2425).rounded(.down))
        let seconds = Int(interval.rounded(.down))
        // The estimate can be one off near New Year.
        while daysFromCivil(year: year, month: 1, day: 1) * 86_400 > seconds { year -= 1 }
        while daysFromCivil(year: year + 1, month: 1, day: 1) * 86_400 <= seconds { year += 1 }
        return year
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The value of 1 to 4 ASCII digits, or nil.
    static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard (1...4).contains(bytes.count) else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The month (1–12) a three-letter name (case-sensitive, as RFC 9110 requires) stands for.
    static func month(_ bytes: ArraySlice<UInt8>) -> Int? {
        monthNames.firstIndex(of: Array(bytes)).map { $0 + 1 }
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }
    static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        .map { Array($0.utf8) }
}
