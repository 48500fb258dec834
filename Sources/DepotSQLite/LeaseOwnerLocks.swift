import Depot
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether the process behind an outbox lease on one SQLite file is alive, from a fact the
/// operating system keeps: every process that opens the file holds an exclusive `flock` on its
/// own lock file, `<file>-owners/<process token>.lock`, for as long as it lives. The kernel drops
/// the lock when the process ends, however it ends (SIGKILL included), so a lease whose owner's
/// lock can be taken belongs to a process that is gone, and is free at once; time expiry is left
/// for an owner that is alive but hung.
///
/// A lease whose owner has no lock file (written by another host over a shared file system, or by
/// an older Depot) is judged by its expiry alone.
struct LeaseOwnerLocks: Sendable {
    /// The folder of lock files beside the database file.
    let directory: String

    /// Takes (once per process and file) this process's lock beside the database at `path`.
    ///
    /// - Throws: `DepotError` `.storage` when the folder or the lock file cannot be made.
    init(databasePath path: String) throws {
        directory = path + "-owners"
        try Self.held.withLock { held in
            guard held[directory] == nil else { return }
            if mkdir(directory, 0o755) != 0, errno != EEXIST {
                throw DepotError(.storage, "cannot make the lease owners' folder \(directory): errno \(errno)")
            }
            let file = Self.file(directory, token: LeaseOwner.process.token)
            let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw DepotError(.storage, "cannot open the lease owner's lock \(file): errno \(errno)")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                throw DepotError(.storage, "cannot lock the lease owner's lock \(file): errno \(errno)")
            }
            // Kept open for the life of the process: the lock is the fact that it lives.
            held[directory] = descriptor
        }
    }

    /// Whether `owner` (a lease owner name, ``LeaseOwner``) is a process that has ended: its lock
    /// file is there and nobody holds it. False for this process, for a live one, and for an
    /// owner without a lock file.
    func hasEnded(owner: String) -> Bool {
        guard let token = LeaseOwner.processToken(of: owner) else { return false }
        if token == LeaseOwner.process.token { return false }
        let file = Self.file(directory, token: token)
        let descriptor = open(file, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        // Its process is gone: the file goes, while the lock is held.
        unlink(file)
        return true
    }

    private static func file(_ directory: String, token: String) -> String {
        "\(directory)/\(token).lock"
    }

    /// The lock file descriptor this process holds, per owners' folder.
    private static let held = LockedValue<[String: Int32]>([:])
}
