import Depot
import Foundation

/// A replica's clock that runs `offset` seconds ahead of the system's (behind when negative): what
/// a host whose clock is off looks like to a forwarder (`ForwarderConfiguration.clock`). Sleeps
/// last as long as on the system clock.
public struct OffsetClock: ForwarderClock {
    /// How far ahead of the system clock it runs, in seconds.
    public let offset: TimeInterval

    /// A clock `offset` seconds ahead of the system's.
    public init(offset: TimeInterval) { self.offset = offset }

    /// The system's time plus ``offset``.
    public var now: Date { Date().addingTimeInterval(offset) }

    /// True: a machine's wall clock that runs wrong (retry times go on the store's clock).
    public var isWallClock: Bool { true }

    /// Sleeps until `deadline` on this clock.
    public func sleep(until deadline: Date) async throws {
        try await SystemForwarderClock().sleep(until: deadline.addingTimeInterval(-offset))
    }
}
