import Dispatch

/// A guarantee fulfilled after `seconds` have passed.
///
/// ```swift
/// after(seconds: 0.5).done { print("half a second later") }
/// ```
///
/// A negative or NaN `seconds` is 0; an infinite or huge one is capped at ``maximumDispatchDelay``
/// (about 31 years), never a trap.
public func after(seconds: Double) -> Guarantee<Void> {
    let (promise, resolver) = Promise<Void>.pending()
    PromiseDefaults.queue.asyncAfter(deadline: .now() + boundedDelay(seconds)) { resolver.fulfill() }
    return Guarantee(promise)
}

/// The longest delay Depot hands Dispatch: 10⁹ seconds (about 31 years). A `DispatchTime` plus a
/// `Double` traps when the nanoseconds do not fit in 64 bits.
public let maximumDispatchDelay: Double = 1e9

/// `seconds` made safe for `DispatchTime + Double`: NaN and negatives are 0, anything above
/// ``maximumDispatchDelay`` (infinity included) is that.
package func boundedDelay(_ seconds: Double) -> Double {
    guard seconds > 0 else { return 0 }  // NaN compares false
    return min(seconds, maximumDispatchDelay)
}

/// A guarantee fulfilled after `duration` has passed.
public func after(_ duration: Duration) -> Guarantee<Void> {
    after(seconds: duration.seconds)
}

extension Duration {
    /// The duration in seconds, as a Double (for Dispatch and Foundation APIs).
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds (for NIO's `TimeAmount`), saturating at `Int64.min` and
    /// `Int64.max` (about 292 years) instead of trapping.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflowAgain else { return seconds < 0 ? .min : .max }
        return total
    }
}
