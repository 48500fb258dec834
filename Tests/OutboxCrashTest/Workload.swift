import Depot
import Foundation
import SoakSupport

/// The parent's local writes, and what the server must hold once every one is forwarded: the notes
/// the local store has (tombstones left out). Kept across rounds, like the server and the file.
struct Workload: Sendable {
    /// How many writes of each kind one call of ``write(_:to:)`` made.
    struct Counts: Sendable, CustomStringConvertible {
        /// Local creates.
        var creates = 0
        /// Whole-object updates (`PUT`).
        var updates = 0
        /// Merge patches (`PATCH`).
        var patches = 0
        /// Deletes.
        var deletes = 0

        /// All of them.
        var total: Int { creates + updates + patches + deletes }

        /// `"61 creates, 52 updates, 58 patches, 29 deletes"`.
        var description: String {
            "\(creates) creates, \(updates) updates, \(patches) patches, \(deletes) deletes"
        }
    }

    /// Every note as it must end up on the server, by id.
    private(set) var expected: [String: Note] = [:]
    /// The ids writes choose from: few enough that most are written more than once per round, so
    /// entries coalesce (create+patch, update+delete, create+delete…) or chain (delete+create).
    private let ids: [String]
    /// The next revision stamped on a note: every write changes the note.
    private var revision = 0
    /// Chooses ids, kinds of write and values.
    private var random: SeededGenerator

    /// A workload over `idCount` ids, none of which exists yet, its choices drawn from `seed`.
    init(idCount: Int, seed: UInt64) {
        ids = (1...max(idCount, 1)).map { "note-\($0)" }
        random = SeededGenerator(seed: seed)
    }

    /// Makes `count` local writes through `notes`, each to a random id: a create when the id has
    /// no note, else an update, a patch or a delete.
    ///
    /// - Throws: what the local store threw (any failure is a failure of the test).
    mutating func write(_ count: Int, to notes: Notes) async throws -> Counts {
        var counts = Counts()
        for _ in 0..<count {
            let id = ids.randomElement(using: &random)!
            revision += 1
            guard let current = expected[id] else {
                let note = Note(id: id, text: "created \(revision)", revision: revision, tag: Self.tag(&random))
                _ = try await notes.create(note).value
                expected[id] = note
                counts.creates += 1
                continue
            }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<30:
                let note = Note(id: id, text: "updated \(revision)", revision: revision, tag: Self.tag(&random))
                _ = try await notes.update(note).value
                expected[id] = note
                counts.updates += 1
            case 30..<75:
                var note = current
                note.revision = revision
                if Bool.random(using: &random) { note.text = "patched \(revision)" }
                if Bool.random(using: &random) { note.tag = Self.tag(&random) }
                _ = try await notes.patch(note).value
                expected[id] = note
                counts.patches += 1
            default:
                _ = try await notes.delete(id: id).value
                expected[id] = nil
                counts.deletes += 1
            }
        }
        return counts
    }

    /// A tag, or none a third of the time (a patch then removes the member with `null`).
    private static func tag(_ random: inout SeededGenerator) -> String? {
        Int.random(in: 0..<3, using: &random) == 0 ? nil : ["red", "green", "blue"].randomElement(using: &random)
    }
}
