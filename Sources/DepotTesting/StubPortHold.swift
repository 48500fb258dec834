#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A socket bound to `127.0.0.1:<port>` that does not listen. While a ``StubServer`` is offline it
/// keeps the port from being given to another server (or lent as a client connection's local
/// port), so a request meant for this server is refused rather than answered by another test's;
/// a client that connects is refused as by a closed port.
enum StubPortHold {
    /// Binds a socket to `port` on 127.0.0.1 without listening; nil when the port cannot be held
    /// (the hold is best effort: the server goes offline all the same).
    static func hold(_ port: Int) -> Int32? {
        // Close-on-exec: a child process a test starts must not keep the port held.
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0, let port = UInt16(exactly: port) else {
            if fd >= 0 { close(fd) }
            return nil
        }
        // Connections the listener accepted may linger in TIME_WAIT on the port; SO_REUSEPORT lets
        // the hold bind while the listener (which sets it too) still listens, and the next
        // listener bind while the hold is still here: the port is never free in between.
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Lets the port go.
    static func release(_ fd: Int32) {
        close(fd)
    }
}
