import Foundation

/// One step of a soak workload.
public enum SoakOperation: Sendable, Equatable {
    case create(id: String, value: String)
    case update(id: String, value: String)
    case patch(id: String, value: String)
    case delete(id: String)
    case read(id: String)
    case readAll
    case synchronize
    case flush

    /// The entity a write touches; nil for reads, synchronizations and flushes.
    public var writtenID: String? {
        switch self {
        case .create(let id, _), .update(let id, _), .patch(let id, _), .delete(let id): id
        default: nil
        }
    }

    /// The value a write leaves (nil for a delete, which leaves nothing).
    public var writtenValue: String? {
        switch self {
        case .create(_, let value), .update(_, let value), .patch(_, let value): value
        default: nil
        }
    }

    /// The journal's words for it: `create i3 v17`, `delete i3`, `flush`.
    public var words: String {
        switch self {
        case .create(let id, let value): "create \(id) \(value)"
        case .update(let id, let value): "update \(id) \(value)"
        case .patch(let id, let value): "patch \(id) \(value)"
        case .delete(let id): "delete \(id)"
        case .read(let id): "read \(id)"
        case .readAll: "readAll"
        case .synchronize: "synchronize"
        case .flush: "flush"
        }
    }

    /// Reads ``words`` back; nil for anything else.
    public init?(words: String) {
        let parts = words.split(separator: " ").map(String.init)
        switch (parts.first, parts.count) {
        case ("create", 3): self = .create(id: parts[1], value: parts[2])
        case ("update", 3): self = .update(id: parts[1], value: parts[2])
        case ("patch", 3): self = .patch(id: parts[1], value: parts[2])
        case ("delete", 2): self = .delete(id: parts[1])
        case ("read", 2): self = .read(id: parts[1])
        case ("readAll", 1): self = .readAll
        case ("synchronize", 1): self = .synchronize
        case ("flush", 1): self = .flush
        default: return nil
        }
    }
}

/// Draws a workload's operations from a seed. What it draws next depends on what succeeded so
/// far (a failed create leaves nothing to update), so the driver reports each outcome.
public struct SoakWorkload: Sendable {
    private var random: SeededGenerator
    /// Ids the program believes exist: created, and not deleted.
    private var live: [String] = []
    private var nextID = 1

    /// A workload drawn from `seed`.
    public init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    /// The operation with index `index`.
    public mutating func next(index: Int) -> SoakOperation {
        let value = "v\(index)"
        let roll = Int.random(in: 0..<100, using: &random)
        guard !live.isEmpty, roll >= 25 else {
            defer { nextID += 1 }
            return .create(id: "i\(nextID)", value: value)
        }
        let id = live[Int.random(in: 0..<live.count, using: &random)]
        switch roll {
        case 25..<45: return .update(id: id, value: value)
        case 45..<65: return .patch(id: id, value: value)
        case 65..<75: return .delete(id: id)
        case 75..<83: return .read(id: id)
        case 83..<88: return .readAll
        case 88..<94: return .synchronize
        default: return .flush
        }
    }

    /// Records how `operation` ended: a create that succeeded makes its id live; a delete, however
    /// it ended, retires its id (the workload never touches it again).
    public mutating func record(_ operation: SoakOperation, succeeded: Bool) {
        switch operation {
        case .create(let id, _) where succeeded: live.append(id)
        case .delete(let id): live.removeAll { $0 == id }
        default: break
        }
    }
}
