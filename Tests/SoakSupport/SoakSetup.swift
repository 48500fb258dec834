import Depot
import Foundation

/// How a soak round's program is set up, the same in a child process and in a unit test: short
/// timeouts and backoffs (so faults cost milliseconds, not minutes), a retry policy (so its
/// `Retry-After` handling meets the hostile values too), and a strategy drawn from the seed.
public enum SoakSetup {
    /// The client's timeout; ``SoakFaults`` delays some answers past it.
    public static let timeout = Duration.milliseconds(800)
    /// A delay longer than ``timeout``.
    public static let pastTimeout = Duration.milliseconds(1_000)

    /// The session a round's program uses; the unit test passes a shorter `timeout`.
    public static func session(url: URL, timeout: Duration = timeout) -> NetworkingSession {
        NetworkingSession(
            url: url,
            configuration: SessionConfiguration(
                timeout: timeout,
                retryPolicy: RetryPolicy(
                    maximumAttempts: 3, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(50))
            ))
    }

    /// The repository a round's program writes through: remote-first or local-first by the seed.
    public static func items(session: Networking, storage: Storage, seed: UInt64) -> SoakItems {
        SoakItems(store: session, storage: storage, strategy: SoakItems.strategies[Int(seed % 2)].strategy)
    }

    /// The forwarder a round's program starts.
    public static func forwarder(_ items: SoakItems) -> Forwarder {
        Forwarder(
            for: items,
            configuration: ForwarderConfiguration(
                baseDelay: .milliseconds(10), maximumDelay: .milliseconds(100), pollInterval: .milliseconds(200)))
    }
}
