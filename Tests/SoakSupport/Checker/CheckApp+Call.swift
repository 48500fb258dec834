import Depot
import DepotSQLite
import Foundation

extension CheckApp {
    /// The step's call, as a closure that captures only values.
    func makeCall(_ step: CheckStep) -> @Sendable () async -> CheckAnswer {
        let items = self.items(step.strategy, as: step.account)
        let forwarder = step.account == "R" ? replicaForwarder ?? self.forwarder : self.forwarder
        let held = step.handle.flatMap { self.held[$0] }
        let createdID = step.handle.map(createdID)
        // The schema field of the app's version (rounds that migrate): v1 writes `tag`, v2 `label`.
        let migrates = program.shape.migrates
        let tag: String? = migrates && schemaVersion == 1 ? "1" : nil
        let label: String? = migrates && schemaVersion == 2 ? "2" : nil
        var fields: JSONObject = [:]
        if let tag { fields["tag"] = .string(tag) }
        if let label { fields["label"] = .string(label) }
        let schemaFields = fields
        let server = self.server
        return {
            do {
                switch step.action {
                case .create(_, let value), .recreate(_, let value):
                    let answer = try await items.create(
                        CheckItem(id: createdID!, value: value, tag: tag, label: label)
                    ).value
                    return .one(answer.value, answer.origin)
                case .recreateJSON(_, let value):
                    let object = schemaFields.merging(["id": .string(createdID!), "value": .string(value)]) { $1 }
                    let answer = try await items.create(object).value
                    return .one(answer.value, answer.origin)
                case .update(_, let value):
                    var entity = held!
                    entity.value = value
                    if tag != nil || label != nil { (entity.tag, entity.label) = (tag, label) }
                    let answer = try await items.update(entity).value
                    return .one(answer.value, answer.origin)
                case .patch(_, let value):
                    var entity = held!
                    entity.value = value
                    if tag != nil || label != nil { (entity.tag, entity.label) = (tag, label) }
                    let answer = try await items.patch(entity).value
                    return .one(answer.value, answer.origin)
                case .delete:
                    let answer = try await items.delete(id: held!.id).value
                    return .one(nil, answer.origin)
                case .read, .reread:
                    let answer = try await items.read(held!.id).value
                    return .one(answer.value, answer.origin)
                case .readV2:
                    let answer = try await CheckRepository<CheckItemV2>(items).read(held!.id).value
                    let item = answer.value
                    return .one(
                        CheckItem(
                            id: item.id, value: item.value, body: item.body, viewer: item.viewer,
                            updatedAt: item.updatedAt),
                        answer.origin)
                case .readQuery:
                    let answer = try await items.readAll(query: ["kind": "item"]).value
                    return .list(answer.value, answer.origin)
                case .readAll:
                    let answer = try await items.readAll().value
                    return .list(answer.value, answer.origin)
                case .synchronize:
                    let filled = server.silentPagesFilled
                    let report = try await items.synchronize().value
                    return .synchronized(report, silentPagesFilled: server.silentPagesFilled - filled)
                case .flush:
                    _ = try await forwarder.flush().value
                    return .done
                default:
                    return .done
                }
            } catch let error as DepotError {
                return .failed(error.code.description)
            } catch {
                return .failed("\(type(of: error))")
            }
        }
    }
}

extension CheckAction {
    /// The actions it is made of (`.both` unfolded).
    var parts: [CheckAction] {
        if case .both(let first, let second) = self { return first.parts + second.parts }
        return [self]
    }

    /// Whether it signs an account out.
    var isLogout: Bool {
        if case .logout = self { return true }
        return false
    }

    /// Whether it signs an account in (in rounds whose sessions declare their account, a switch to it).
    var isSignIn: Bool {
        if case .signIn = self { return true }
        return false
    }
}

extension CheckStep {
    /// The entity the step names.
    var handle: Int? {
        switch action {
        case .create(let handle, _), .update(let handle, _), .patch(let handle, _), .delete(let handle),
            .read(let handle), .readV2(let handle), .reread(let handle), .otherWrite(let handle, _),
            .otherDelete(let handle),
            .otherCorrupt(let handle),
            .recreate(let handle, _), .recreateJSON(let handle, _):
            handle
        default: nil
        }
    }

    /// Whether it creates.
    var isCreate: Bool {
        switch action {
        case .create, .recreate, .recreateJSON: true
        default: false
        }
    }

    /// The state an app write leaves: `.some(value)`, `.some(nil)` for a delete; nil for others.
    var writtenState: String?? {
        switch action {
        case .create(_, let value), .update(_, let value), .patch(_, let value), .recreate(_, let value),
            .recreateJSON(_, let value):
            .some(value)
        case .delete: .some(nil)
        default: nil
        }
    }
}
