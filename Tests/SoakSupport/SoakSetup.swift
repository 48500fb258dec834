import Depot
import Foundation
import Logging

/// How a soak round's program is set up, the same in a child process and in a unit test: short
/// timeouts and backoffs (so faults cost milliseconds, not minutes), a retry policy (so its
/// `Retry-After` handling meets the hostile values too), and a strategy drawn from the seed.
public enum SoakSetup {
    /// The client's timeout; ``SoakFaults`` delays some answers past it.
    public static let timeout = Duration.milliseconds(800)
    /// A delay longer than ``timeout``.
    public static let pastTimeout = Duration.milliseconds(1_000)
    /// The lease of `shortLease` rounds: shorter than their slow answers.
    public static let shortLease = Duration.seconds(1)
    /// The slow answers of `shortLease` rounds, in milliseconds: longer than ``shortLease``,
    /// shorter than ``slowTimeout``.
    public static let slowDelays = 1_200...2_500
    /// The client's timeout in `shortLease` rounds, so a slow answer still arrives.
    public static let slowTimeout = Duration.seconds(4)

    /// The client's timeout in a round with `modes`.
    public static func timeout(_ modes: SoakModes) -> Duration { modes.shortLease ? slowTimeout : timeout }

    /// A delay longer than the client's timeout in a round with `modes`.
    public static func pastTimeout(_ modes: SoakModes) -> Duration {
        modes.shortLease ? slowTimeout + .milliseconds(500) : pastTimeout
    }

    /// The session a round's program uses; `timeout` is ``timeout`` unless given. `unanswered` is
    /// told the `Idempotency-Key` of every attempt that ended with no answer from the server (a
    /// timeout, a dropped connection, a cancelled request): the client cannot know whether the
    /// server applied it, so a server that ignores keys may apply its resend again. That is a
    /// fact the client records, which a fault plan only approximates: on a slow machine an answer
    /// the server sent in time still arrives after the client's timeout.
    public static func session(
        url: URL, timeout: Duration = SoakSetup.timeout, unanswered: (@Sendable (String) -> Void)? = nil
    ) -> NetworkingSession {
        var configuration = SessionConfiguration(
            timeout: timeout,
            retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(50))
        )
        if let unanswered {
            configuration.onResponse = { request, result, _ in
                guard case .failure(let error) = result, error.status == nil,
                    let key = request.header("Idempotency-Key")
                else { return }
                unanswered(key)
            }
        }
        return NetworkingSession(url: url, configuration: configuration)
    }

    /// The repository a round's program writes through: remote-first or local-first by the seed.
    public static func items(session: Networking, storage: Storage, seed: UInt64) -> SoakItems {
        SoakItems(store: session, storage: storage, strategy: SoakItems.strategies[Int(seed % 2)].strategy)
    }

    /// The forwarder a round's program starts, with leases of `lease` (5 s by default: the
    /// recovery after a SIGKILL takes the killed child's entries once their leases lapse).
    public static func forwarder(_ items: SoakItems, lease: Duration = .seconds(5)) -> Forwarder {
        Forwarder(
            for: items,
            configuration: ForwarderConfiguration(
                baseDelay: .milliseconds(10), maximumDelay: .milliseconds(100), pollInterval: .milliseconds(200),
                leaseDuration: lease))
    }

    /// The AutoSync of a `roads` round: `items` synchronized every 300 ms, early after local writes
    /// on `forwarder`, on an executor of its own that logs nothing (the child's standard output is
    /// its journal); shut it down after ``AutoSync/stop()``.
    public static func autoSync(_ items: SoakItems, observing forwarder: Forwarder) -> (AutoSync, ActionExecutor) {
        let executor = ActionExecutor(
            maxConcurrent: 2, logger: Logger(label: "soak.actions", factory: { _ in SwiftLogNoOpLogHandler() }))
        let sync = AutoSync(
            executor: executor, every: .milliseconds(300),
            configuration: AutoSyncConfiguration(
                baseDelay: .milliseconds(50), maximumDelay: .milliseconds(500), debounce: .milliseconds(50)))
        sync.add(SynchronizeAction(items))
        sync.observe(forwarder)
        return (sync, executor)
    }
}
