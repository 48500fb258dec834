import Foundation

/// Exponential backoff with jitter and `Retry-After`, shared by ``RetryPolicy`` and
/// ``ForwarderConfiguration``.
///
/// Everything is computed in `Double` and clamped to `0...maximum` before a `Duration` is made, so
/// no failure count (up to `Int.max`), multiplier or server-sent value can trap.
struct Backoff: Sendable {
    /// The pause after the first failure.
    var base: Duration
    /// Each further pause is the previous one times this.
    var multiplier: Double
    /// The longest pause, `Retry-After` included.
    var maximum: Duration
    /// The fraction (0…1) of each pause that is random.
    var jitter: Double

    /// The pause after `failures` consecutive failures (values below 1 count as 1).
    ///
    /// - Parameters:
    ///   - failures: How many attempts failed in a row.
    ///   - retryAfter: The server's `Retry-After` in seconds, when it sent one; it wins over the
    ///     computed backoff and is clamped like it.
    ///   - random: A number in 0…1 that places the pause within its jitter spread.
    func delay(failures: Int, retryAfter: Double? = nil, random: Double = .random(in: 0...1)) -> Duration {
        let ceiling = max(maximum, .zero)
        if let retryAfter { return Self.duration(seconds: retryAfter, maximum: ceiling) }
        let exponent = Double(max(failures, 1) - 1)
        let raw = max(base.seconds, 0) * pow(multiplier, exponent)
        // NaN only comes from 0 × ∞: a zero base stays zero.
        let exponential = raw.isNaN ? 0 : min(max(raw, 0), ceiling.seconds)
        let fraction = jitter.isNaN ? 0 : min(max(jitter, 0), 1)
        let unit = random.isNaN ? 0.5 : min(max(random, 0), 1)
        let spread = exponential * fraction
        return Self.duration(seconds: exponential - spread + unit * spread * 2, maximum: ceiling)
    }

    /// `seconds` as a `Duration` within `0...maximum`: NaN and negative values give zero, infinite
    /// and too large ones give `maximum`.
    static func duration(seconds: Double, maximum: Duration) -> Duration {
        guard !seconds.isNaN, seconds > 0 else { return .zero }
        guard seconds < maximum.seconds else { return maximum }
        return min(.seconds(seconds), maximum)
    }
}

/// Reads the `Retry-After` field (RFC 9110 §10.2.3).
enum RetryAfter {
    /// The most seconds a digit string gives (about 31 700 years); longer strings saturate here.
    static let saturation: Double = 1e12

    /// The pause `value` asks for, in seconds (finite, zero or more), or nil when `value` is
    /// neither delay-seconds (`1*DIGIT`: no sign, decimal point or exponent) nor an HTTP date
    /// (IMF-fixdate, RFC 850 or asctime). A date in the past gives 0.
    static func seconds(_ value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !trimmed.isEmpty else { return nil }
        if trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            var seconds: Double = 0
            for digit in trimmed.utf8 {
                seconds = seconds * 10 + Double(digit - UInt8(ascii: "0"))
                if seconds >= saturation { return saturation }
            }
            return seconds
        }
        guard let date = HTTPDate.parse(trimmed, now: now) else { return nil }
        let interval = date.timeIntervalSince(now)
        return interval.isFinite ? max(interval, 0) : nil
    }
}
