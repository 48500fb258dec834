import Depot
import Foundation

/// Runs a seeded workload against a repository, one operation at a time, while a started forwarder
/// sends the outbox in the background. Each operation is journalled before it starts
/// (`OP <index> <words>`) and when it ends (`OK <index> <origin>` or `ERR <index> <code>`), so a
/// run killed at any point leaves a journal the model can judge.
public struct SoakRunner: Sendable {
    /// The repository the operations go through.
    public let items: SoakItems
    /// The forwarder started for the run.
    public let forwarder: Forwarder

    /// A runner over `items`, forwarding with `forwarder`.
    public init(items: SoakItems, forwarder: Forwarder) {
        self.items = items
        self.forwarder = forwarder
    }

    /// Runs `count` operations drawn from `seed`, calling `journal` with each journal line.
    public func run(seed: UInt64, count: Int, journal: @Sendable (String) -> Void) async {
        var workload = SoakWorkload(seed: seed)
        for index in 0..<count {
            let operation = workload.next(index: index)
            journal("OP \(index) \(operation.words)")
            do {
                let origin = try await perform(operation)
                journal("OK \(index) \(origin)")
                workload.record(operation, succeeded: true)
            } catch {
                let code = (error as? DepotError)?.code.description ?? "other"
                journal("ERR \(index) \(code)")
                workload.record(operation, succeeded: false)
            }
        }
    }

    /// Performs one operation; returns where the answer came from (`remote`, `local`, or `-` for
    /// synchronizations and flushes).
    func perform(_ operation: SoakOperation) async throws -> String {
        switch operation {
        case .create(let id, let value):
            return try await items.create(SoakItem(id: id, value: value)).value.origin.description
        case .update(let id, let value):
            return try await items.update(SoakItem(id: id, value: value)).value.origin.description
        case .patch(let id, let value):
            return try await items.patch(SoakItem(id: id, value: value)).value.origin.description
        case .delete(let id):
            return try await items.delete(id: id).value.origin.description
        case .read(let id):
            return try await items.read(id).value.origin.description
        case .readAll:
            return try await items.readAll().value.origin.description
        case .synchronize:
            _ = try await items.synchronize().value
            return "-"
        case .flush:
            _ = try await forwarder.flush().value
            return "-"
        }
    }
}
