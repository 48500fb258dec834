import Depot
import Foundation

/// Prints programs as the calls a user would write, so a shrunk failure reads as a test to start
/// from.
public enum CheckRender {
    /// A client id as the app spells it (``CheckServerShape/lowercaseIDs``,
    /// ``CheckServerShape/localSpelledIDs``).
    static func plainID(_ handle: Int, _ shape: CheckServerShape) -> String {
        if shape.lowercaseIDs { return "ABCDEF00-…-\(handle)" }
        return shape.localSpelledIDs ? "local-\(handle)" : "i\(handle)"
    }

    /// The Swift for one step.
    public static func call(_ step: CheckStep, shape: CheckServerShape) -> String {
        let items = "items(.\(step.strategy.rawValue), as: \"\(step.account)\")"
        let forwarder = step.account == "R" ? "replicaForwarder" : "forwarder"
        let held = step.handle.map { "e\($0)" } ?? "_"
        var line: String
        switch step.action {
        case .create(let handle, let value):
            let id = shape.assignsIDs ? "tmp-\(handle)" : plainID(handle, shape)
            line =
                "var e\(handle) = try await \(items).create(CheckItem(id: \"\(id)\", value: \"\(value)\")).value.value"
        case .recreate(let handle, let value):
            let id = shape.assignsIDs ? "tmp-\(handle)" : plainID(handle, shape)
            line =
                "e\(handle) = try await \(items).create(CheckItem(id: \"\(id)\", value: \"\(value)\")).value.value   // again"
        case .recreateJSON(let handle, let value):
            let id = plainID(handle, shape)
            line =
                "e\(handle) = try await \(items).create([\"id\": \"\(id)\", \"value\": \"\(value)\"]).value.value   // again, as JSON"
        case .update(_, let value):
            line = "\(held).value = \"\(value)\"; \(held) = try await \(items).update(\(held)).value.value"
        case .patch(_, let value):
            line = "\(held).value = \"\(value)\"; \(held) = try await \(items).patch(\(held)).value.value"
        case .delete: line = "_ = try await \(items).delete(id: \(held).id).value"
        case .read: line = "\(held) = try await \(items).read(\(held).id).value.value"
        case .readV2:
            line =
                "_ = try await itemsV2(.\(step.strategy.rawValue), as: \"\(step.account)\").read(\(held).id).value   // v2 of the app"
        case .reread:
            line =
                "\(held) = try await \(items).read(\(held).id).value.value; _ = try await \(items).read(\(held).id).value   // twice"
        case .migrate:
            line =
                "try await storage.migrate(CollectionSchema(\"items\", entity: CheckItem.self, migrations: [Migration(to: 2\(shape.migratesQueued ? ", queuedWrites: .migrate" : "")) { $0[\"label\"] = $0.removeValue(forKey: \"tag\") }]))"
        case .readAll: line = "_ = try await \(items).readAll().value"
        case .readQuery: line = "_ = try await \(items).readAll(query: [\"kind\": \"item\"]).value"
        case .synchronize: line = "_ = try await \(items).synchronize().value"
        case .flush: line = "_ = try await \(forwarder).flush().value"
        case .otherWrite(_, let value): line = "server.otherClientWrites(\(held), value: \"\(value)\")"
        case .otherDelete: line = "server.otherClientDeletes(\(held))"
        case .otherCorrupt: line = "server.otherClientWritesUnreadable(\(held))   // value: 12345"
        case .offline: line = "try await stub.goOffline()"
        case .online: line = "try await stub.goOnline()"
        case .restart: line = "storage = try SQLiteStorage(path: path)   // the app starts again"
        case .leasesLapse:
            line = "try await lapseLeases(in: storage)   // every lease's expiry passes, its sender alive"
        case .expireToken(let account): line = "server.expireToken(of: \"\(account)\")   // the next request gets 401"
        case .logout(let account): line = "authentication[\"\(account)\"].update(credential: nil)   // signs out"
        case .signIn(let account):
            line = "authentication[\"\(account)\"].update(credential: server.token(of: \"\(account)\"))   // signs in"
        case .child(let action): line = childCall(action, step: step)
        case .both(let first, let second):
            var one = step
            one.action = first
            one.during = nil
            one.fault = nil
            var two = one
            two.action = second
            line = call(one, shape: shape) + "\n" + call(two, shape: shape)
        }
        if let during = step.during {
            var inner = step
            inner.action = during
            inner.during = nil
            inner.fault = nil
            line =
                "async let first: Void = { \(line) }()   // its first request held 300 ms at the server\n"
                + "/* meanwhile */ \(call(inner, shape: shape).replacingOccurrences(of: "var ", with: ""))\n"
                + "try await first"
        }
        if step.fault == .cancel {
            line =
                "let task = Task { \(line) }; task.cancel()   // once its first request is at the server (held 300 ms)"
        } else if let fault = step.fault {
            line = "stub.inject(.\(fault.rawValue))   // the next request\n" + line
        }
        return line
    }

    /// The words for how a call ended.
    static func words(_ answer: CheckAnswer) -> String {
        switch answer {
        case .one(let item?, let origin):
            "\(origin): \(item.id)=\(item.value)\(item.body == nil ? " (no body)" : "")\(item.viewer.map { " for \($0)" } ?? "")"
        case .one(nil, let origin): "\(origin)"
        case .list(let items, let origin):
            "\(origin): [\(items.map { "\($0.id)=\($0.value)" }.joined(separator: ", "))]"
        case .done: "done"
        case .synchronized(let report, _): syncWords(report)
        case .failed(let code): "failed .\(code)"
        }
    }

    /// The words for a synchronization's report: whether its pull was complete, what it pruned,
    /// its errors' codes.
    static func syncWords(_ report: SynchronizationReport) -> String {
        var words = ["done"]
        if report.pullCompleted { words.append("pull complete") }
        if report.pruned > 0 { words.append("pruned \(report.pruned)") }
        if !report.errors.isEmpty {
            words.append("errors: " + report.errors.map { ".\($0.code)" }.joined(separator: ", "))
        }
        return words.joined(separator: ", ")
    }

    /// The whole program, with the server's shape and the seed to replay it.
    public static func program(_ program: CheckProgram) -> String {
        var lines = [
            "// seed \(program.seed): swift run Soak --check --seed \(program.seed)",
            "// server: \(program.shape)",
        ]
        for (index, step) in program.steps.enumerated() {
            lines.append(
                contentsOf: call(step, shape: program.shape).split(separator: "\n").map { "/* \(index) */ \($0)" })
        }
        return lines.joined(separator: "\n")
    }
}

extension CheckRender {
    /// The program as a Swift literal, for a regression case in the README suite.
    public static func literal(_ program: CheckProgram) -> String {
        let shape = program.shape
        var flags: [String] = []
        if shape.assignsIDs { flags.append("$0.assignsIDs = true") }
        if shape.servesETags { flags.append("$0.servesETags = true") }
        if shape.variesByCaller { flags.append("$0.variesByCaller = true") }
        if shape.summarizesLists { flags.append("$0.summarizesLists = true") }
        if let cacheControl = shape.cacheControl { flags.append("$0.cacheControl = \"\(cacheControl)\"") }
        if shape.batchRoute { flags.append("$0.batchRoute = true") }
        if shape.conflictsInFlight { flags.append("$0.conflictsInFlight = true") }
        if !shape.sqlite { flags.append("$0.sqlite = false") }
        if shape.refreshesTokens { flags.append("$0.refreshesTokens = true") }
        if shape.lowercaseIDs { flags.append("$0.lowercaseIDs = true") }
        if shape.incremental { flags.append("$0.incremental = true") }
        if shape.replica { flags.append("$0.replica = true") }
        if shape.cookies { flags.append("$0.cookies = true") }
        if shape.wholeSecondTimeout { flags.append("$0.wholeSecondTimeout = true") }
        if shape.clientWins { flags.append("$0.clientWins = true") }
        if shape.tinyCache { flags.append("$0.tinyCache = true") }
        if shape.declaresServerKeys { flags.append("$0.declaresServerKeys = true") }
        if shape.migrates { flags.append("$0.migrates = true") }
        if shape.migratesQueued { flags.append("$0.migratesQueued = true") }
        if shape.hugeAge { flags.append("$0.hugeAge = true") }
        if shape.localSpelledIDs { flags.append("$0.localSpelledIDs = true") }
        if shape.answersWritesEmpty { flags.append("$0.answersWritesEmpty = true") }
        if shape.linkPaging { flags.append("$0.linkPaging = true") }
        if shape.silentPages { flags.append("$0.silentPages = true") }
        if shape.omitsNulls { flags.append("$0.omitsNulls = true") }
        if let seconds = shape.longRetryAfter { flags.append("$0.longRetryAfter = \(seconds)") }
        if shape.redirectsElsewhere { flags.append("$0.redirectsElsewhere = true") }
        if shape.chainedRefresh { flags.append("$0.chainedRefresh = true") }
        if shape.declaresAccounts { flags.append("$0.declaresAccounts = true") }
        if shape.childCollection { flags.append("$0.childCollection = true") }
        flags.append("$0.pageSize = \(shape.pageSize)")
        var lines = ["CheckProgram(seed: \(program.seed), shape: .with { \(flags.joined(separator: "; ")) }, steps: ["]
        for step in program.steps {
            var arguments = [action(step.action)]
            if step.strategy != .remoteFirst { arguments.append("strategy: .\(step.strategy.rawValue)") }
            if step.account != "A" { arguments.append("account: \"\(step.account)\"") }
            if let fault = step.fault { arguments.append("fault: .\(fault.rawValue)") }
            if let during = step.during { arguments.append("during: \(action(during))") }
            lines.append("    CheckStep(\(arguments.joined(separator: ", "))),")
        }
        lines.append("])")
        return lines.joined(separator: "\n")
    }

    static func action(_ action: CheckAction) -> String {
        switch action {
        case .create(let handle, let value): ".create(handle: \(handle), value: \"\(value)\")"
        case .update(let handle, let value): ".update(handle: \(handle), value: \"\(value)\")"
        case .patch(let handle, let value): ".patch(handle: \(handle), value: \"\(value)\")"
        case .delete(let handle): ".delete(handle: \(handle))"
        case .read(let handle): ".read(handle: \(handle))"
        case .readV2(let handle): ".readV2(handle: \(handle))"
        case .readAll: ".readAll"
        case .readQuery: ".readQuery"
        case .synchronize: ".synchronize"
        case .flush: ".flush"
        case .otherWrite(let handle, let value): ".otherWrite(handle: \(handle), value: \"\(value)\")"
        case .otherDelete(let handle): ".otherDelete(handle: \(handle))"
        case .otherCorrupt(let handle): ".otherCorrupt(handle: \(handle))"
        case .recreate(let handle, let value): ".recreate(handle: \(handle), value: \"\(value)\")"
        case .recreateJSON(let handle, let value): ".recreateJSON(handle: \(handle), value: \"\(value)\")"
        case .offline: ".offline"
        case .online: ".online"
        case .restart: ".restart"
        case .leasesLapse: ".leasesLapse"
        case .expireToken(let account): ".expireToken(account: \"\(account)\")"
        case .logout(let account): ".logout(account: \"\(account)\")"
        case .signIn(let account): ".signIn(account: \"\(account)\")"
        case .reread(let handle): ".reread(handle: \(handle))"
        case .migrate: ".migrate"
        case .child(let action): ".child(\(childAction(action)))"
        case .both(let first, let second): ".both(\(Self.action(first)), \(Self.action(second)))"
        }
    }
}
