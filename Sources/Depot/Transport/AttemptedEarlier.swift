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

/// The error underneath a transport failure when the transport knows that no byte of the request
/// could have reached the server: a connection that was never made (refused, no route, a failed
/// name lookup) on a connection pool that held no connection the request could have been sent on.
/// Only a failure carrying it counts as "never sent" (the outbox fact `DepotError` carries): an outbox
/// entry whose send failed so stays an ordinary, unsent entry that later writes fold into.
///
/// ``NetworkingSession`` knows it from its URLSession's history (no answer ever came on it, so
/// libcurl held no kept-alive connection it could have reused and then silently retried on a new
/// one); after a refusal that followed a live connection it starts a new URLSession, so the next
/// refusal is known unsent. The AsyncHTTPClient transport knows it from the connection itself.
public struct RequestNotSent: Error, Sendable, CustomStringConvertible {
    /// The transport's own error (a `URLError`, a NIO connection error).
    public var cause: any Error

    /// Wraps `cause`.
    public init(cause: any Error) { self.cause = cause }

    /// The cause, and that nothing was sent.
    public var description: String { "\(cause) (nothing was sent)" }
}
