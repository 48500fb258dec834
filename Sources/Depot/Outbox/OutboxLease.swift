import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sender's claim on an outbox entry, stored with the entry: while it holds, no other sender —
/// another forwarder, another storage object on the same file, another process — sends the entry.
///
/// A lease ends when its sender releases it, when ``expiry`` passes, or at once when the sender's
/// process is gone (a process on this host that no longer runs, so a restarted app does not wait
/// out the lease of the one that crashed).
public struct OutboxLease: Sendable, Hashable {
    /// Who holds it: `host:pid:process-token#claim`, one value per claim.
    public var owner: String
    /// When it lapses if its holder neither renews nor releases it.
    public var expiry: Date

    /// Makes a lease.
    public init(owner: String, expiry: Date) {
        self.owner = owner
        self.expiry = expiry
    }

    /// Whether another sender may take the entry at `now`: the lease has lapsed, or it belongs to
    /// a process on this host that has ended.
    public func isFree(at now: Date) -> Bool {
        expiry <= now || LeaseOwner.isGone(owner)
    }
}

extension OutboxEntry {
    /// Whether a sender may claim this entry at `now`: not refused, and not leased by a live holder.
    public func isClaimable(at now: Date) -> Bool {
        !isRejected && (lease?.isFree(at: now) ?? true)
    }
}

/// Lease owner names: unique per claim, and telling which process made them.
enum LeaseOwner {
    /// This process: host name, process id, and a token that tells it from an earlier process that
    /// had the same id.
    static let process: (host: String, pid: Int32, token: String) = {
        var buffer = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        let cleaned = host.replacingOccurrences(of: ":", with: "_")
        return (cleaned, getpid(), String(UUID().uuidString.prefix(8)))
    }()

    private static let counter = LockedValue<UInt64>(0)

    /// A new owner name for one claim of this process.
    static func next() -> String {
        let number = counter.withLock { value -> UInt64 in
            value &+= 1
            return value
        }
        return "\(process.host):\(process.pid):\(process.token)#\(number)"
    }

    /// True when `owner` names a process on this host that has ended: another process id that no
    /// longer exists, or this process id with another token (an earlier process that had it).
    /// Owners from other hosts, or in a form this does not know, are never taken for gone.
    static func isGone(_ owner: String) -> Bool {
        let parts = owner.prefix { $0 != "#" }.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, String(parts[0]) == process.host, let pid = Int32(parts[1]), pid > 0 else {
            return false
        }
        if pid == process.pid { return String(parts[2]) != process.token }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}
