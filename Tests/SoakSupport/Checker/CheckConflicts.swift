import Depot

/// The conflicts the app's conflict policy decided in a server-wins round, recorded where the
/// policy runs: every conflict the outbox resolves, whether the server refused a write (409, 412)
/// or Depot judged one before sending it (a write over a version an answer without an `ETag` left
/// unknown reads the server's copy first, and a copy changed since is a conflict no request tells
/// the server of). The checker judges an entity's end state from these, not from the server's
/// refusals alone.
public final class CheckConflicts: Sendable {
    /// One conflict the policy decided.
    public struct Decision: Sendable, Hashable {
        /// The entity's id as the outbox entry named it.
        public var entityID: String
        /// Whether the server held a copy when the policy decided.
        public var serverHeld: Bool
        /// The `value` of the server's copy the policy decided against (nil without a copy).
        public var serverValue: String?
    }

    private let decisions = LockedValue<[Decision]>([])

    /// An empty log.
    public init() {}

    /// Every conflict decided so far, in order.
    public var all: [Decision] { decisions.withLock { $0 } }

    /// ``ConflictPolicy/serverWins`` that records each decision first: the server's version
    /// stays, as under `.serverWins` (the outbox's one conflict road decides by the resolution
    /// alone, so only the record is added).
    public var serverWins: ConflictPolicy {
        .custom { [decisions] conflict in
            decisions.withLock {
                $0.append(
                    Decision(
                        entityID: conflict.entry.entityID, serverHeld: conflict.server != nil,
                        serverValue: conflict.server?["value"]?.stringValue))
            }
            return .serverWins
        }
    }
}
