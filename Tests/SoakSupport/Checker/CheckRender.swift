import Depot
import Foundation

/// Prints programs as the calls a user would write, so a shrunk failure reads as a test to start
/// from.
public enum CheckRender {
    /// The Swift for one step.
    public static func call(_ step: CheckStep, shape: CheckServerShape) -> String {
        let items = "items(.\(step.strategy.rawValue), as: \"\(step.account)\")"
        let held = step.handle.map { "e\($0)" } ?? "_"
        var line: String
        switch step.action {
        case .create(let handle, let value):
            let id = shape.assignsIDs ? "tmp-\(handle)" : "i\(handle)"
            line = "var e\(handle) = try await \(items).create(CheckItem(id: \"\(id)\", value: \"\(value)\")).value.value"
        case .update(_, let value):
            line = "\(held).value = \"\(value)\"; \(held) = try await \(items).update(\(held)).value.value"
        case .patch(_, let value):
            line = "\(held).value = \"\(value)\"; \(held) = try await \(items).patch(\(held)).value.value"
        case .delete: line = "_ = try await \(items).delete(id: \(held).id).value"
        case .read: line = "\(held) = try await \(items).read(\(held).id).value.value"
        case .readAll: line = "_ = try await \(items).readAll().value"
        case .synchronize: line = "_ = try await \(items).synchronize().value"
        case .flush: line = "_ = try await forwarder.flush().value"
        case .otherWrite(_, let value): line = "server.otherClientWrites(\(held), value: \"\(value)\")"
        case .otherDelete: line = "server.otherClientDeletes(\(held))"
        case .offline: line = "try await stub.goOffline()"
        case .online: line = "try await stub.goOnline()"
        case .restart: line = "storage = try SQLiteStorage(path: path)   // the app starts again"
        }
        if let fault = step.fault { line = "stub.inject(.\(fault.rawValue))   // the next request\n" + line }
        return line
    }

    /// The words for how a call ended.
    static func words(_ answer: CheckAnswer) -> String {
        switch answer {
        case .one(let item?, let origin): "\(origin): \(item.id)=\(item.value)\(item.body == nil ? " (no body)" : "")\(item.viewer.map { " for \($0)" } ?? "")"
        case .one(nil, let origin): "\(origin)"
        case .list(let items, let origin): "\(origin): [\(items.map { "\($0.id)=\($0.value)" }.joined(separator: ", "))]"
        case .done: "done"
        case .failed(let code): "failed .\(code)"
        }
    }

    /// The whole program, with the server's shape and the seed to replay it.
    public static func program(_ program: CheckProgram) -> String {
        var lines = [
            "// seed \(program.seed): swift run Soak --check --seed \(program.seed)",
            "// server: \(program.shape)",
        ]
        for (index, step) in program.steps.enumerated() {
            lines.append(contentsOf: call(step, shape: program.shape).split(separator: "\n").map { "/* \(index) */ \($0)" })
        }
        return lines.joined(separator: "\n")
    }
}
