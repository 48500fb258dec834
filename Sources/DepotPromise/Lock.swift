#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pthread mutex: the lock Depot uses for all shared state, because ThreadSanitizer models it
/// (on Linux it does not model `Synchronization.Mutex`, so a suite guarded by `Mutex` cannot be
/// checked for races). Modelled on swift-nio's `NIOLock`. Not recursive: never take it twice.
package final class Lock: @unchecked Sendable {  // @unchecked: the pthread mutex guards itself
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Makes an unlocked lock.
    package convenience init() { self.init(spinning: false) }

    /// Makes an unlocked lock; with `spinning`, a thread that finds it held spins a little before
    /// sleeping (glibc's adaptive mutex), for locks held briefly by many threads at once.
    package init(spinning: Bool) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        #if canImport(Glibc)
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            defer { pthread_mutexattr_destroy(&attributes) }
            if spinning { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP)) }
            let status = pthread_mutex_init(mutex, &attributes)
        #else
            let status = pthread_mutex_init(mutex, nil)
        #endif
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held.
    @inline(__always)
    package func withLock<Output>(_ body: () throws -> Output) rethrows -> Output {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by a ``Lock``: the drop-in for `Mutex<Value>` that ThreadSanitizer understands.
///
/// ```swift
/// let count = LockedValue(0)
/// count.withLock { $0 += 1 }
/// ```
package final class LockedValue<Value> {
    private let lock = Lock()
    private var value: Value

    /// Wraps `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Output>(_ body: (inout Value) throws -> Output) rethrows -> Output {
        try lock.withLock { try body(&value) }
    }
}

extension LockedValue: @unchecked Sendable where Value: Sendable {}  // @unchecked: `lock` guards `value`

/// A fixed set of pthread mutexes shared by many small objects (promises), picked by the object's
/// address, so an object pays no allocation for its lock. A holder must never take a second
/// stripe while holding one: two objects can share a stripe, and the mutexes are not recursive.
struct LockStripes: @unchecked Sendable {  // @unchecked: the pointer never changes; each mutex guards itself
    private static let stride = 64  // one cache line per mutex, so stripes do not share lines
    private let base: UnsafeMutableRawPointer
    private let mask: UInt

    /// Makes `count` stripes (a power of two); they live as long as the process.
    init(count: Int) {
        precondition(count > 0 && count & (count - 1) == 0, "stripe count must be a power of two")
        precondition(MemoryLayout<pthread_mutex_t>.size <= Self.stride, "pthread_mutex_t larger than a stripe")
        base = .allocate(byteCount: count * Self.stride, alignment: Self.stride)
        mask = UInt(count - 1)
        for index in 0..<count {
            let mutex = (base + index * Self.stride).bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
    }

    /// The stripe for `object`.
    @inline(__always)
    func mutex(for object: AnyObject) -> UnsafeMutablePointer<pthread_mutex_t> {
        let address = UInt(bitPattern: ObjectIdentifier(object))  // the address itself: no hashing
        let index = ((address >> 4) ^ (address >> 12)) & mask  // objects are 16-byte aligned
        return (base + Int(index) * Self.stride).assumingMemoryBound(to: pthread_mutex_t.self)
    }

    /// The stripes promises use.
    static let promises = LockStripes(count: 256)
}
