import Foundation

/// The error underneath a call's failure whose last attempt never reached the server (a failed
/// name lookup) while an earlier attempt of the same call may have: ``last`` is the last
/// attempt's own underlying error, ``earlier`` the failure of the attempt that may have reached
/// the server. A failure carrying it is never taken for "never sent" (attempts are facts).
public struct AttemptedEarlier: Error, Sendable, CustomStringConvertible {
    /// The last attempt's underlying error (a `URLError` of a failed lookup, say).
    public var last: (any Error)?
    /// The failure of an earlier attempt that may have reached the server.
    public var earlier: DepotError

    /// Makes the account of the two failures.
    public init(last: (any Error)?, earlier: DepotError) {
        self.last = last
        self.earlier = earlier
    }

    /// Both failures, the last first.
    public var description: String {
        "\(last.map { "\($0)" } ?? "-") (after an earlier attempt that may have reached the server: \(earlier))"
    }
}
