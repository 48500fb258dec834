import Depot
import Foundation

/// The second replica's clock: 30 s fast (its sleeps end when the system clock reaches the
/// deadline less 30 s).
struct FastClock: ForwarderClock {
    /// 30 s ahead of `Date()`.
    var now: Date { Date().addingTimeInterval(30) }

    func sleep(until deadline: Date) async throws {
        try await SystemForwarderClock().sleep(until: deadline.addingTimeInterval(-30))
    }
}
