import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sender's claim on an outbox entry, stored with the entry: while it holds, no other sender —
/// another forwarder, another storage object on the same file, another process or replica — sends
/// the entry.
///
/// The store grants and judges leases on its own clock (``OutboxTransaction/leaseTime()``: the
/// database's clock on PostgreSQL, the writer's clock made monotonic on one SQLite file), read in
/// the claim's transaction, never on a sender's clock: a replica whose clock runs fast does not
/// take a live lease. A lease ends when its sender releases it or when ``expiry`` passes; a sender
/// renews its leases while it works, so a live sender's lease does not lapse, and a process that
/// ended frees its claims at once (its owner lock is gone), without waiting for ``expiry``. The
/// ``owner`` is a fencing token: unique per claim, checked on every write of the entry, so a
/// sender that lost its lease writes nothing back.
///
/// Expiry is for a holder in another process, which this one cannot see. A holder in this
/// process is judged by a fact: its claim is still open (not yet ended) or it is not. Another
/// sender of this process never takes an entry from an open claim, however late its renewal
/// (a starved thread, a suspended machine); it takes one from an ended claim at once.
public struct OutboxLease: Sendable, Hashable {
    /// Who holds it: `host:pid:process-token#claim`, one value per claim (only compared, never parsed).
    public var owner: String
    /// When it lapses, on the store's clock, if its holder neither renews nor releases it.
    public var expiry: Date

    /// Makes a lease.
    public init(owner: String, expiry: Date) {
        self.owner = owner
        self.expiry = expiry
    }

    /// Whether another sender may take the entry at `now` (the store's time,
    /// ``OutboxTransaction/leaseTime()``): the lease has lapsed, and it is not held by a claim of
    /// this process that is still open (a fact this process knows; the clock judges only holders
    /// elsewhere). A host name and process id are never read: they say nothing across hosts,
    /// containers or pid namespaces.
    public func isFree(at now: Date) -> Bool {
        expiry <= now && !OutboxClaim.isOpen(owner)
    }
}

extension OutboxEntry {
    /// Whether a sender may claim this entry at `now` (the store's time): not refused, and not
    /// leased by a live holder.
    public func isClaimable(at now: Date) -> Bool {
        !isRejected && (lease?.isFree(at: now) ?? true)
    }
}

/// Lease owner names: unique per claim (the fencing token every write of a claimed entry checks),
/// and telling which process made them, for people reading the store.
package enum LeaseOwner {
    /// This process: host name, process id, and a random token that tells it from every other
    /// process, here or on another host with the same name and id (containers all run as pid 1).
    package static let process: (host: String, pid: Int32, token: String) = {
        var buffer = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        let cleaned = host.replacingOccurrences(of: ":", with: "_")
        return (cleaned, getpid(), UUID.randomV4().uuidString)
    }()

    private static let counter = LockedValue<UInt64>(0)

    /// The process token in `owner` (a name ``next()`` made: `host:pid:token#claim`), or nil when
    /// `owner` is not of that form or its token is not a UUID's text (a stored row is data: the
    /// token names a lock file, so nothing but hex digits and dashes passes).
    package static func processToken(of owner: String) -> String? {
        guard let hash = owner.lastIndex(of: "#"), let colon = owner[..<hash].lastIndex(of: ":") else { return nil }
        let token = owner[owner.index(after: colon)..<hash]
        guard token.count == 36, token.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || isxdigit(Int32($0)) != 0 })
        else { return nil }
        return String(token)
    }

    /// A new owner name for one claim of this process.
    static func next() -> String {
        let number = counter.withLock { value -> UInt64 in
            value &+= 1
            return value
        }
        return "\(process.host):\(process.pid):\(process.token)#\(number)"
    }
}
