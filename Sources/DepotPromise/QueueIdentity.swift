import Dispatch

/// A queue's identity that survives rewrapping, for matching the queue a job runs on.
///
/// On Linux a `DispatchQueue` is a Swift object wrapping a `dispatch_queue_t`, and
/// `DispatchQueue.main` and `DispatchQueue.global()` make a new wrapper on every access: keyed by
/// `ObjectIdentifier`, one serial queue would be two, and callbacks attached through the two
/// wrappers could run out of the order they were attached (Promises/A+ 2.2.6). The key is the
/// wrapped `dispatch_queue_t` instead: it is the queue. On Darwin the wrapper is the queue.
///
/// A key is only compared while a job or drainer holds a wrapper of its queue, so the queue is
/// alive and its address is not reused.
enum QueueIdentity {
    /// The key for `queue`: equal for every wrapper of the same dispatch queue.
    @inline(__always)
    static func key(_ queue: DispatchQueue) -> UInt {
        #if canImport(Darwin)
            return UInt(bitPattern: ObjectIdentifier(queue))
        #else
            switch layout {
            case .offset(let offset):
                return Unmanaged.passUnretained(queue).toOpaque().load(fromByteOffset: offset, as: UInt.self)
            case .reflected:
                return reflectedKey(queue) ?? UInt(bitPattern: ObjectIdentifier(queue))
            }
        #endif
    }

    #if !canImport(Darwin)
        /// Where the wrapped `dispatch_queue_t` lives in a `DispatchQueue` wrapper.
        enum Layout {
            /// At this byte offset in the object (checked against reflection once).
            case offset(Int)
            /// Unknown: read it through reflection on every call (slow, but never wrong).
            case reflected
        }

        /// The wrapper's layout, checked once against `Mirror`: swift-corelibs-libdispatch keeps the
        /// queue in `DispatchQueue.__wrapped`, its only stored property, right after the object
        /// header. If a later Dispatch moves it, keys come from reflection rather than a wrong word.
        static let layout: Layout = {
            let header = 2 * MemoryLayout<UInt>.size
            let samples = [DispatchQueue.main, DispatchQueue.main, .global(), DispatchQueue(label: "depot.identity")]
            for sample in samples {
                guard let reflected = reflectedKey(sample), reflected != 0 else { return .reflected }
                let read = Unmanaged.passUnretained(sample).toOpaque().load(fromByteOffset: header, as: UInt.self)
                guard read == reflected else { return .reflected }
            }
            return .offset(header)
        }()

        /// The wrapped `dispatch_queue_t`, read through `Mirror`; nil if the wrapper has none.
        static func reflectedKey(_ queue: DispatchQueue) -> UInt? {
            var mirror: Mirror? = Mirror(reflecting: queue)
            while let current = mirror {
                for child in current.children where child.label == "__wrapped" {
                    guard let pointer = child.value as? OpaquePointer else { return nil }
                    return UInt(bitPattern: Int(bitPattern: pointer))
                }
                mirror = current.superclassMirror
            }
            return nil
        }
    #endif
}
