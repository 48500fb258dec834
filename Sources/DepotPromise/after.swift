import Dispatch

/// A guarantee fulfilled after `seconds` have passed.
///
/// ```swift
/// after(seconds: 0.5).done { print("half a second later") }
/// ```
public func after(seconds: Double) -> Guarantee<Void> {
    let (promise, resolver) = Promise<Void>.pending()
    PromiseDefaults.queue.asyncAfter(deadline: .now() + max(0, seconds)) { resolver.fulfill() }
    return Guarantee(promise)
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

    /// The duration in whole nanoseconds (for NIO's `TimeAmount`).
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
