/// 64-bit FNV-1a: a hash that is the same in every process and every version (Swift's `Hasher`
/// is seeded per process), for keys that are stored or shared between processes. Not
/// cryptographic.
package struct FNV1a: Sendable {
    /// The hash of the bytes mixed so far.
    package private(set) var value: UInt64

    /// Starts from FNV-1a's offset basis, or from `seed` for a second, independent stream.
    package init(seed: UInt64 = 0xcbf2_9ce4_8422_2325) { value = seed }

    /// Mixes `bytes` in, in order.
    package mutating func mix(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }

    /// The hash of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = FNV1a()
        hash.mix(bytes)
        return hash.value
    }
}
