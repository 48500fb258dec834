import Foundation

/// Reads and writes ISO 8601 / RFC 3339 date-times by arithmetic on the proleptic Gregorian
/// calendar: no formatter (none of Foundation's is `Sendable` on every platform), no trap on any
/// text (every field is bounded before it is used).
enum ISO8601Stamp {
    /// The first second of year 1 and of year 10000, as seconds since 1970.
    static let range: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    /// The date `text` names, or nil when it is not an ISO 8601 date-time.
    ///
    /// Accepts `YYYY-MM-DD`, then optionally `T` (or `t` or a space) `hh:mm`, `:ss`, a fraction of
    /// any length after `.` or `,`, and a zone: `Z`, `±hh:mm`, `±hhmm` or `±hh`. A stamp without a
    /// zone is read as wall-clock time in `zone`.
    static func date(_ text: String, zonelessIn zone: TimeZone) -> Date? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let year = reader.digits(4), reader.take(UInt8(ascii: "-")),
            let month = reader.digits(2), reader.take(UInt8(ascii: "-")),
            let day = reader.digits(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), year >= 1
        else { return nil }
        var seconds = Double(daysSince1970(year: year, month: month, day: day)) * 86_400
        var offset: Int? = nil
        if reader.takeAny([UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")]) {
            guard let hour = reader.digits(2), reader.take(UInt8(ascii: ":")), let minute = reader.digits(2),
                hour < 24, minute < 60
            else { return nil }
            var second = 0
            var fraction = 0.0
            if reader.take(UInt8(ascii: ":")) {
                guard let value = reader.digits(2), value < 60 else { return nil }
                second = value
                if reader.takeAny([UInt8(ascii: "."), UInt8(ascii: ",")]) {
                    guard let value = reader.fraction() else { return nil }
                    fraction = value
                }
            }
            seconds += Double(hour * 3_600 + minute * 60 + second) + fraction
            if reader.takeAny([UInt8(ascii: "Z"), UInt8(ascii: "z")]) {
                offset = 0
            } else if let sign = reader.sign() {
                guard let hours = reader.digits(2), hours < 24 else { return nil }
                var minutes = 0
                if !reader.atEnd {
                    _ = reader.take(UInt8(ascii: ":"))
                    guard let value = reader.digits(2), value < 60 else { return nil }
                    minutes = value
                }
                offset = sign * (hours * 3_600 + minutes * 60)
            }
        }
        guard reader.atEnd else { return nil }
        if let offset { return Date(timeIntervalSince1970: seconds - Double(offset)) }
        // Wall-clock time in `zone`: the offset at the instant, found in two steps for a DST change.
        let first = zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds))
        let second = zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds - Double(first)))
        return Date(timeIntervalSince1970: seconds - Double(second))
    }

    /// `date` in UTC as `2026-11-28T19:28:05.981Z` (`fractionalSeconds`: 3 digits, or 6 when the
    /// date has microseconds) or `2026-11-28T19:28:05Z`; nil outside years 1–9999.
    static func text(_ date: Date, fractionalSeconds: Bool) -> String? {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, range.contains(interval) else { return nil }
        let micros = Int64((interval * 1_000_000).rounded())
        var (seconds, fraction) = micros.quotientAndRemainder(dividingBy: 1_000_000)
        if fraction < 0 { (seconds, fraction) = (seconds - 1, fraction + 1_000_000) }
        var (days, timeOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        if timeOfDay < 0 { (days, timeOfDay) = (days - 1, timeOfDay + 86_400) }
        let (year, month, day) = civil(daysSince1970: days)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
        text += "\(padded(timeOfDay / 3_600, 2)):\(padded(timeOfDay / 60 % 60, 2)):\(padded(timeOfDay % 60, 2))"
        if fractionalSeconds {
            text += fraction % 1_000 == 0 ? "." + padded(fraction / 1_000, 3) : "." + padded(fraction, 6)
        }
        return text + "Z"
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (Howard Hinnant's `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A cursor over the stamp's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// Exactly `count` ASCII digits as a number.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        /// One or more digits read as a fraction (at most 9 count, the rest are skipped).
        mutating func fraction() -> Double? {
            var value = 0.0
            var scale = 1.0
            var count = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                if count < 9 {
                    scale /= 10
                    value += Double(bytes[index] - UInt8(ascii: "0")) * scale
                }
                count += 1
                index += 1
            }
            return count > 0 ? value : nil
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func takeAny(_ choices: [UInt8]) -> Bool {
            guard index < bytes.count, choices.contains(bytes[index]) else { return false }
            index += 1
            return true
        }

        /// `+` as 1, `-` as -1.
        mutating func sign() -> Int? {
            if take(UInt8(ascii: "+")) { return 1 }
            if take(UInt8(ascii: "-")) { return -1 }
            return nil
        }
    }
}
