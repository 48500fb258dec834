import Foundation

/// What ``OutboxTransaction/appendOutboxIfFirst(_:)`` did: appended the entry, or found the
/// entity's last entry and left the outbox as it was.
public enum OutboxAppend: Sendable, Equatable {
    /// The entity had no entry: the entry was added under this new sequence.
    case appended(sequence: Int64)
    /// The entity's last entry (refused or not): nothing was added.
    case behind(OutboxEntry)
}
