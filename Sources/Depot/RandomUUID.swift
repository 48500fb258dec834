import Foundation

extension UUID {
    /// A new random UUID (version 4, RFC 9562), its 122 random bits from the system's generator
    /// (`getrandom` on Linux). Foundation's `UUID()` on Linux opens, reads and closes
    /// `/dev/urandom` for every UUID: three system calls and a file descriptor each, and every
    /// local write makes one or two (its idempotency key, its outbox entry's key).
    package static func randomV4() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let words: (UInt64, UInt64) = (generator.next(), generator.next())
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { target in
            withUnsafeBytes(of: words) { target.copyMemory(from: $0) }
        }
        uuid.6 = (uuid.6 & 0x0F) | 0x40  // version 4
        uuid.8 = (uuid.8 & 0x3F) | 0x80  // variant 10
        return UUID(uuid: uuid)
    }
}
