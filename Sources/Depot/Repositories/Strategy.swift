/// Where an answer came from, or where a rule sends an operation first.
public enum Origin: String, Sendable, Hashable, CustomStringConvertible {
    /// The local ``Storage``.
    case local
    /// The REST server.
    case remote

    /// The other side.
    public var other: Origin { self == .local ? .remote : .local }

    /// `"local"` or `"remote"`.
    public var description: String { rawValue }
}

/// How one operation runs: on which side first, where to fall back, and whether the other side is
/// brought in step with the answer.
///
/// - `target`: the side that answers first.
/// - `fallback`: the side that answers when the target fails: a remote target fails over on a
///   transport error, a timeout, a 5xx, a 408 or a 429 (never another 4xx, which is the server's
///   answer), and a remote write fails over without being sent when earlier writes to the same
///   entity still wait in the outbox (`DepotError.Code.queuedBehindEarlierWrites`: it is
///   recorded behind them); a local
///   target fails over when the entity is not stored locally or the store fails.
/// - `synchronize`: after the answering side succeeds, apply the result to the other side too
///   (store what the server answered; send a local write to the server), except a local write made
///   because the server just failed, which stays unsynced for later. A failure here is reported in ``Sourced/synchronizationError`` and never
///   replaces the value already obtained.
public struct Rule: Sendable, Hashable {
    /// The side that answers first.
    public var target: Origin
    /// The side that answers when the target fails; nil for none.
    public var fallback: Origin?
    /// Whether the other side is brought in step with the answer. A local write with it sends
    /// its outbox entries at once, with the configuration of the ``Forwarder`` started on that
    /// storage (clock, lease duration, request timeout, backoff), else the default one.
    public var synchronize: Bool
    /// How a remote read uses the HTTP cache in the store (``CacheUse``); writes ignore it.
    public var cache: CacheUse

    /// Makes a rule.
    public init(target: Origin, fallback: Origin? = nil, synchronize: Bool = true, cache: CacheUse = .revalidate) {
        precondition(fallback != target, "a rule cannot fall back to its own target")
        self.target = target
        self.fallback = fallback
        self.synchronize = synchronize
        self.cache = cache
    }
}

/// A ``Rule`` per repository operation (Evocation's strategies under Depot's names).
///
/// ```swift
/// let strategy = Strategy.remoteFirst.with(.readAll, Rule(target: .local, fallback: .remote))
/// ```
public struct Strategy: Sendable, Hashable {
    /// The rule for operations without one of their own.
    public var defaultRule: Rule
    /// Rules for particular operations.
    public var rules: [RepositoryOperation: Rule]

    /// One rule for every operation, with optional overrides.
    public init(_ defaultRule: Rule, rules: [RepositoryOperation: Rule] = [:]) {
        self.defaultRule = defaultRule
        self.rules = rules
    }

    /// The rule for `operation`.
    public func rule(for operation: RepositoryOperation) -> Rule { rules[operation] ?? defaultRule }

    /// This strategy with `rule` for `operation`.
    public func with(_ operation: RepositoryOperation, _ rule: Rule) -> Strategy {
        var copy = self
        copy.rules[operation] = rule
        return copy
    }

    /// Server first; when it cannot be reached, the local store answers. Answers are stored.
    public static let remoteFirst = Strategy(Rule(target: .remote, fallback: .local, synchronize: true))
    /// Local store first; what it lacks comes from the server. Local writes are sent on.
    public static let localFirst = Strategy(Rule(target: .local, fallback: .remote, synchronize: true))
    /// ``remoteFirst`` whose reads answer from the store while the stored answer is fresh (no
    /// request), and else revalidate it with a conditional GET (``CacheUse/cacheFirst``).
    public static let cacheFirst = Strategy(
        Rule(target: .remote, fallback: .local, synchronize: true, cache: .cacheFirst))
    /// ``remoteFirst`` whose reads answer from the store at once and revalidate in the background
    /// (``CacheUse/staleWhileRevalidate``): the answer's origin is `.local`, and
    /// ``Sourced/isStale`` says whether it was past its freshness.
    public static let staleWhileRevalidate = Strategy(
        Rule(target: .remote, fallback: .local, synchronize: true, cache: .staleWhileRevalidate))
}

/// A value with where it came from and what went wrong on the way.
///
/// The value's own properties read through the answer, so one `.value` is enough for an entity
/// while ``origin`` and the errors stay at hand:
///
/// ```swift
/// let note = try await cached.read(42).value   // Sourced<Note>
/// print(note.text, note.origin)                // note.value.text, without the second .value
/// ```
@dynamicMemberLookup
public struct Sourced<Value: Sendable>: Sendable {
    /// The answer.
    public var value: Value
    /// The side that answered.
    public var origin: Origin
    /// The target's error, when the fallback answered. A remote write recorded in the outbox
    /// behind earlier writes to the same entity has `.queuedBehindEarlierWrites` here, with
    /// ``origin`` `.local`.
    public var fallbackError: DepotError?
    /// The error of bringing the other side in step, when that failed (the value stands).
    public var synchronizationError: DepotError?
    /// Whether the store answered with a copy past its freshness (RFC 9111): under
    /// ``CacheUse/staleWhileRevalidate`` while it is revalidated, or after the server failed
    /// within the answer's `stale-if-error` window (then ``fallbackError`` says how).
    public var isStale: Bool
    /// Whether the value holds local changes not yet sent to the server: a remote read of a
    /// record with a pending edit answers with what the store holds, the server's answer with the
    /// app's change on top, and says so here.
    public var hasPendingWrites: Bool
    /// The rows of a remote list answer the app could not read (a field its model cannot decode):
    /// left out of ``value``, kept raw in the store's quarantine and merged by a later pull once
    /// the app reads them, as a pull's ``SynchronizationReport/unreadable`` rows are. Empty
    /// otherwise.
    public var unreadable: [UnreadableRow]

    /// Makes a sourced value.
    public init(
        value: Value, origin: Origin, fallbackError: DepotError? = nil, synchronizationError: DepotError? = nil,
        isStale: Bool = false, hasPendingWrites: Bool = false, unreadable: [UnreadableRow] = []
    ) {
        self.value = value
        self.origin = origin
        self.fallbackError = fallbackError
        self.synchronizationError = synchronizationError
        self.isStale = isStale
        self.hasPendingWrites = hasPendingWrites
        self.unreadable = unreadable
    }

    /// A property of ``value``, read through the answer: `answer.text` is `answer.value.text`.
    /// The answer's own properties (``origin``, ``fallbackError``…) come first.
    public subscript<Property>(dynamicMember keyPath: KeyPath<Value, Property>) -> Property {
        value[keyPath: keyPath]
    }
}

extension DepotError {
    /// True when a rule with a fallback should try the other side after this error from `side`.
    public func warrantsFallback(from side: Origin) -> Bool {
        switch side {
        case .remote:
            // 408 and 429 are as passing as a 5xx: the server asks to come back later. A write
            // behind earlier ones in the outbox goes there too, behind them.
            let status = self.status ?? 0
            return code == .transport || code == .timeout || code == .queuedBehindEarlierWrites
                || (code == .status && (status >= 500 || status == 408 || status == 429))
        case .local:
            return code == .notFound || code == .storage
        }
    }
}

extension DepotError.Code {
    /// A remote write was not sent because earlier writes to the same entity still wait in the
    /// outbox (the server failed them, refused one and it was moved aside, or a forwarder is
    /// sending them): the server must see writes in the order they were made. Under a rule that
    /// falls back to `.local` the write is recorded in the outbox behind them (the answer's
    /// ``Sourced/fallbackError``); under one without a fallback it is thrown, and nothing is stored.
    public static let queuedBehindEarlierWrites = DepotError.Code("queuedBehindEarlierWrites")
}
