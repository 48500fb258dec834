#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Depot
import Foundation

/// A child process started with `posix_spawn`, its stdin and stdout pipes held here: no
/// Foundation `Process`, whose launch from a thread other than the one that made it crashed the
/// suite (stop 49), and no run loop. Its pipes are close-on-exec on this side, so no other child
/// inherits them: the child sees its stdin end when this process closes it or ends.
final class SpawnedProcess: Sendable {
    /// The child's process id.
    let pid: pid_t
    /// The write end of the child's stdin.
    private let input: Int32
    /// The read end of the child's stdout.
    private let output: Int32

    private init(pid: pid_t, input: Int32, output: Int32) {
        self.pid = pid
        self.input = input
        self.output = output
    }

    /// A failure to start: which call failed, and its errno.
    struct SpawnFailure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// Held from a pipe's creation until its ends are marked close-on-exec and the child is
    /// spawned (Swift's Glibc has no `pipe2`): no spawn of ours inherits another's pipe.
    private static let spawning = LockedValue(())

    /// Starts `executable` with `arguments`, this process's environment and stderr.
    static func spawn(_ executable: String, _ arguments: [String]) throws -> SpawnedProcess {
        try spawning.withLock { _ in try spawnLocked(executable, arguments) }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not import (it is a GNU extension); nil where the C library lacks it.
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// The C signature of `posix_spawn_file_actions_addclosefrom_np`.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// A pipe whose two ends are close-on-exec.
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnFailure(call: "pipe", code: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    private static func spawnLocked(_ executable: String, _ arguments: [String]) throws -> SpawnedProcess {
        let stdinPipe = try makePipe()
        let stdoutPipe: (read: Int32, write: Int32)
        do {
            stdoutPipe = try makePipe()
        } catch {
            close(stdinPipe.read)
            close(stdinPipe.write)
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the child's 0 and 1; the originals close at exec.
        posix_spawn_file_actions_adddup2(&actions, stdinPipe.read, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe.write, 1)
        // Nothing else of this process goes with the child: a stub server's listening socket or a
        // client connection it inherited would outlive their close here (a server gone offline
        // would still accept connections, and never answer them).
        guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
            close(stdinPipe.read)
            close(stdinPipe.write)
            close(stdoutPipe.read)
            close(stdoutPipe.write)
            throw SpawnFailure(call: "posix_spawn_file_actions_addclosefrom_np", code: ENOSYS)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        // The child's ends are the child's now (or nobody's, when the spawn failed).
        close(stdinPipe.read)
        close(stdoutPipe.write)
        guard result == 0 else {
            close(stdinPipe.write)
            close(stdoutPipe.read)
            throw SpawnFailure(call: "posix_spawn \(executable)", code: result)
        }
        return SpawnedProcess(pid: pid, input: stdinPipe.write, output: stdoutPipe.read)
    }

    /// Reads stdout up to and including its first newline, its end, or `timeout` seconds without
    /// a byte; blocks the calling thread.
    func readLine(timeout seconds: Int32) -> Data {
        var line = Data()
        var byte: UInt8 = 0
        while !line.contains(UInt8(ascii: "\n")) {
            var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, seconds * 1000)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { break }
            let count = read(output, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { break }
            line.append(byte)
        }
        return line
    }

    /// Reads stdout to its end; blocks the calling thread.
    func readToEnd() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Waits for the child to end; its exit status, or -1 when it was killed by a signal.
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import as functions.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }

    /// Sends SIGTERM and closes the child's stdin.
    func terminate() {
        kill(pid, SIGTERM)
        close(input)
    }
}
