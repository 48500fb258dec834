import Depot
import DepotTesting
import Foundation

extension CheckApp {
    /// Whether a write of `handle` met a conflict the conflict policy decided, so its states are
    /// judged no further: the server refused it (409, 412), or Depot judged it before sending (a
    /// write over a version an answer without an `ETag` left unknown reads the server's copy
    /// first) against a copy another client wrote (``CheckConflicts``; a conflict against the
    /// app's own version is not one, and is judged). A 404 is not a conflict: it is judged. Under
    /// `.clientWins` nothing is refused that way.
    func refused(_ handle: Int) -> Bool {
        // Under `.clientWins` the app's write is sent again over the server's version: it lands.
        if program.shape.clientWins { return false }
        let ids = Set(server.applied.filter { model.owner(of: $0.value) == handle }.map(\.id))
            .union([createdID(handle)]).union(held[handle].map { [$0.id] } ?? [])
        if server.refusals.contains(where: {
            ($0.status == 409 || $0.status == 412) && (model.owner(of: $0.value) == handle || ids.contains($0.id))
        }) {
            return true
        }
        let canonicalIDs = Set(ids.map(server.canonical))
        let others = server.applied.filter { $0.account == "other" }
        return conflicts.all.contains { decision in
            let id = server.canonical(decision.entityID)
            guard canonicalIDs.contains(id) || model.owner(of: decision.serverValue) == handle else { return false }
            // The copy the policy kept is another client's write (or its delete of the entity).
            guard decision.serverHeld else {
                return others.contains { $0.value == nil && server.canonical($0.id) == id }
            }
            return decision.serverValue != nil && others.contains { $0.value == decision.serverValue }
        }
    }

    /// Whether the app's last acknowledgement of `handle` came from the store, and the server then
    /// refused a write of it with a 404: the entity is gone there, and the app was told (the
    /// write's synchronization error, its outbox entry's refusal), so a later `.notFound` is right.
    func goneOnServer(_ handle: Int) -> Bool {
        guard let entity = model.entities[handle], !entity.lastRemote else { return false }
        let ids = Set([createdID(handle)]).union(held[handle].map { [$0.id] } ?? [])
        return server.refusals.contains {
            $0.status == 404 && $0.method != "DELETE" && (model.owner(of: $0.value) == handle || ids.contains($0.id))
        }
    }

    /// Judges one step's answer against the model, and records what it acknowledged.
    func judge(
        _ step: CheckStep, index: Int, answer: CheckAnswer, refusalsBefore: (refusals: Int, inFlight: Int),
        outcome: inout CheckRunner.Outcome
    ) {
        func flag(_ kind: String, _ message: String) {
            outcome.violations.append(CheckViolation(kind: kind, step: index, message: message))
        }
        let handle = step.handle
        switch (step.action, answer) {
        case (.create, .one(let item?, let origin)), (.recreate, .one(let item?, let origin)),
            (.recreateJSON, .one(let item?, let origin)),
            (.update, .one(let item?, let origin)),
            (.patch, .one(let item?, let origin)):
            held[handle!] = item
            model.acknowledged(handle!, state: item.value, remote: origin == .remote)
            // An edit answered 204 without a body (``CheckServerShape/answersWritesEmpty``) is
            // answered with what the app sent: no server copy, anyone's, came back.
            let bodiless: Bool =
                switch step.action {
                case .update, .patch: program.shape.answersWritesEmpty
                default: false
                }
            if origin == .remote, !bodiless { checkAccount(item, step: step, flag: flag) }
            if origin != .remote, step.isCreate { model.createdLocally(handle!, refusals: server.refusals.count) }
        case (.delete, .one(_, let origin)):
            model.acknowledged(handle!, state: nil, remote: origin == .remote)
        case (.read, .one(let item?, _)) where concurrent:
            held[handle!] = item
        case (.readV2, .one(let item?, let origin)) where !concurrent:
            checkRead(item, handle: handle!, origin: origin, step: step, flag: flag)
            if origin == .remote, program.shape.summarizesLists, item.body == nil, !leavesOutBody(item) {
                flag(
                    "SUMMARY",
                    "v2 read(\(item.id)) answered from the server without body: a list summary confirmed as the record")
            }
        case (.readV2, .failed("decoding")) where !concurrent && !offline && step.fault == nil:
            // Version 2 reads what version 1 stored: the server always sent the new field, so a
            // record v1 stored from an answer decodes (a stored copy that does not is a cache miss).
            guard step.strategy != .localFirst, step.strategy != .recordOnly, let entity = model.entities[handle!],
                entity.lastRemote,
                entity.uncertain.isEmpty, !entity.unreadable, !refused(handle!), serverObject(handle!) != nil
            else { break }
            flag(
                "UNREADABLE",
                "v2 read(\(held[handle!]?.id ?? "-")) failed .decoding: a stored copy v2 cannot read is an error, not a cache miss"
            )
        case (.readAll, .list) where concurrent, (.readQuery, .list) where concurrent:
            break
        case (.readQuery, .list(let list, let origin)):
            // Every object matches the filter; a list cached before the app's own write never answers
            // an older state after it (a stored record without the field may be left out locally).
            for item in list {
                guard let owner = model.owner(of: item.value) else { continue }
                checkRead(item, handle: owner, origin: origin, step: step, flag: flag)
            }
        case (.read, .one(let item?, let origin)):
            held[handle!] = item
            checkRead(item, handle: handle!, origin: origin, step: step, flag: flag)
            if origin == .remote, program.shape.summarizesLists, item.body == nil, !leavesOutBody(item) {
                flag(
                    "SUMMARY",
                    "read(\(item.id)) answered from the server without body: a list summary confirmed as the record")
            }
            // A detail answer is the record: a key it left out is not kept from an older copy.
            if origin == .remote, let body = item.body, leavesOutBody(item, atItsValue: true) {
                flag(
                    "DROPPED",
                    "read(\(item.id)) answered from the server holds body \(body), a key the server's answer for \(item.value) left out"
                )
            }
        case (.readAll, .list(let list, let origin)):
            for item in list {
                guard let owner = model.owner(of: item.value) else { continue }
                checkRead(item, handle: owner, origin: origin, step: step, flag: flag)
            }
            let listed = Set(list.compactMap { model.owner(of: $0.value) })
            for (owner, entity) in model.entities.sorted(by: { $0.key < $1.key }) {
                // (A plain readAll() reads page 1 of a server that pages every list, by `Link`
                // headers or in silent `{"rows": …}` pages, and a cache-first or
                // stale-while-revalidate one may answer that page from the cache.)
                let pageOne =
                    origin == .remote || step.strategy == .cacheFirst || step.strategy == .staleWhileRevalidate
                guard !(program.shape.linkPaging || program.shape.silentPages) || !pageOne else { break }
                guard case .some(.some(let value)) = entity.last, entity.lastRemote, !entity.unreadable,
                    entity.uncertain.isEmpty,
                    entity.otherAfter.isEmpty, !listed.contains(owner), !refused(owner)
                else { continue }
                // The app holding it under a spelling of its id the server does not use: a kind of its
                // own (issue 32 #7 follow-up), so the others still fail.
                let respelled = held[owner].map { $0.id != server.canonical($0.id) } ?? false
                flag(
                    respelled ? "MISSING CASE" : "MISSING",
                    "readAll() (\(origin)) left out e\(owner), whose \(value) the server acknowledged"
                        + (respelled ? " (the app holds it as \(held[owner]?.id ?? "-"))" : ""))
            }
        case (.synchronize, .synchronized(let report, let filled)) where !concurrent && filled > 0:
            // A list answer that held objects and named no end (``CheckServerShape/silentPages``)
            // is not the whole list: the pull reports `.listNotPaged` (or another failure first), is
            // not complete, and prunes nothing.
            if report.pullCompleted || (report.errors.isEmpty && !report.stoppedEarly) {
                let verdict = report.pullCompleted ? "called its pull complete" : "reported no error"
                flag(
                    "NOT PAGED",
                    "synchronize() read \(filled) {\"rows\": …} page(s) naming no end and \(verdict)"
                        + " (errors: \(report.errors.map { ".\($0.code)" }.joined(separator: ", ")))")
            }
            if report.pruned > 0 {
                flag(
                    "PRUNED",
                    "synchronize() pruned \(report.pruned) stored entities after reading \(filled) {\"rows\": …} page(s)"
                        + " that named no end: what the later pages hold is gone from the store")
            }
        case (.readAll, .failed("decoding")) where !offline && step.fault == nil,
            (.readQuery, .failed("decoding")) where !offline && step.fault == nil:
            let call = step.action == .readAll ? "readAll()" : "readAll(query:)"
            flag("UNREADABLE", "\(call) failed whole with .decoding: one unreadable row cost the readable ones")
        case (_, .failed(let code)):
            if let handle, let written = step.writtenState {
                let isDelete: Bool = if case .delete = step.action { true } else { false }
                let deletedBefore = model.entities[handle]?.uncertain.contains(nil) == true
                model.failed(handle, state: written)
                let live: Bool = if case .some(.some) = model.entities[handle]?.last { true } else { false }
                // A delete whose outcome the app was not told may have happened.
                let exists = live && model.entities[handle]?.uncertain.contains(nil) != true
                let calm =
                    step.fault == nil && !offline && !concurrent && model.entities[handle]?.otherAfter.isEmpty != false
                if code == "notFound", !step.isCreate, exists, calm, !refused(handle), !goneOnServer(handle) {
                    flag(
                        "NOT FOUND",
                        "\(CheckRender.call(step, shape: program.shape)) failed .notFound, though e\(handle) exists")
                }
                // A delete of an entity the server refused a write of with a 404 agrees with the
                // server (nothing to send): .notFound only when an earlier delete may have happened.
                if code == "notFound", isDelete, live, !deletedBefore, calm, !refused(handle), goneOnServer(handle) {
                    flag(
                        "NOT FOUND",
                        "\(CheckRender.call(step, shape: program.shape)) failed .notFound: e\(handle) is gone from the server, and the app deletes it too"
                    )
                }
                // A create needs no object on the server: refused as not found, when the server
                // refused no POST of it, it was turned down for an earlier write's refusal.
                let postRefused = server.refusals.dropFirst(refusalsBefore.refusals).contains {
                    $0.method == "POST" && $0.status == 404
                }
                if code == "notFound", step.isCreate, !exists, step.fault == nil, !offline, !concurrent, !postRefused {
                    flag(
                        "CREATE REFUSED",
                        "\(CheckRender.call(step, shape: program.shape)) failed .notFound: a create needs no object on the server"
                    )
                }
                // (A create of an id the app holds live is a conflict whatever the server said.)
                if code == "conflict", !(step.isCreate && exists), refusalsBefore.refusals == server.refusals.count,
                    refusalsBefore.inFlight < server.inFlightConflicts
                {
                    flag(
                        "FALSE CONFLICT",
                        "\(CheckRender.call(step, shape: program.shape)) failed .conflict, but the server refused no version of it (only a 409 to its key in flight)"
                    )
                }
                // A create, an edit of what exists, or a re-create of what the app deleted.
                let deleted: Bool = if case .some(.none) = model.entities[handle]?.last { true } else { false }
                let fresh: Bool = if case .create = step.action { true } else { false }
                let expected = fresh || (step.isCreate ? deleted : exists)
                // Offline, or gone offline by the fault (the write may even have been applied): a
                // rule with a local fallback answers from the store.
                // After such a fault, only a failure for want of the server counts: the server may
                // have answered the first request (a 412 going to the conflict policy, say).
                let goneByFault =
                    (step.fault == .applyThenGoOffline || step.fault == .secondGoesOffline)
                    && ["authentication", "transport", "timeout"].contains(code)
                let unreachable = (offline && step.fault == nil) || goneByFault
                // (An entity the server refused a write of with a 404 is gone, and the app was told.)
                let told = code == "notFound" && goneOnServer(handle)
                // (A write for an account that signed out is refused `.otherAccount` before anything is
                // sent, offline or not: the app is told whose it is, and nothing is stored. Decided
                // so, seed 13072247310569718933: a rule's fallback is for want of the server.)
                let signedOutAccount = code == "otherAccount"
                if unreachable, expected, !concurrent, !told, !signedOutAccount {
                    flag(
                        "REFUSED OFFLINE",
                        "\(CheckRender.call(step, shape: program.shape)) failed .\(code) offline, with a local fallback"
                    )
                }
            }
        default:
            break
        }
    }

    /// Whether the server's object `item` names has no `body`, and says so by leaving the key out
    /// (``CheckServerShape/omitsNulls``: another client's write cleared it); `atItsValue`: and
    /// `item` shows that version (its value, no pending edit of the app on top).
    func leavesOutBody(_ item: CheckItem, atItsValue: Bool = false) -> Bool {
        guard program.shape.omitsNulls,
            let object = server.objects.first(where: { $0.id == server.canonical(item.id) })
        else { return false }
        return object.writer == "other" && (!atItsValue || object.value == item.value)
    }

    /// A read of `handle` answered `item`: another account's copy, or a state the model does not
    /// allow, is a violation.
    func checkRead(
        _ item: CheckItem, handle: Int, origin: Origin, step: CheckStep, flag: (String, String) -> Void
    ) {
        if origin == .remote { checkAccount(item, step: step, flag: flag) }
        guard let entity = model.entities[handle], let allowed = entity.allowed, !refused(handle) else { return }
        if !allowed.contains(item.value) {
            let states = allowed.map { $0 ?? "deleted" }.sorted().joined(separator: " or ")
            flag("STALE", "\(origin) answer for e\(handle) holds \(item.value); the model allows \(states)")
        }
    }

    /// A remote answer naming another account as its `viewer` is another account's server copy
    /// reaching this one, unless it is the app's own pending local edit (``pendingLocalEdit(_:)``).
    func checkAccount(_ item: CheckItem, step: CheckStep, flag: (String, String) -> Void) {
        if let viewer = item.viewer, viewer != step.caller, !pendingLocalEdit(item) {
            flag("ACCOUNT", "account \(step.account) was answered \(viewer)'s copy of \(item.id) by the server side")
        }
    }

    /// Whether `item` is an app write not known to have reached the server (the store acknowledged
    /// it, or its outcome is unknown), with the `viewer` its entity carried, on a round whose app
    /// does not declare `viewer` the server's: then `viewer` is a field of the app's own, and a read
    /// answers the pending edit on top of the server's copy (``Sourced/hasPendingWrites``), as the
    /// app wrote it. By design: accounts that share one store share its pending local edits (the
    /// docs give each account its own store, Caching.md "One record, one rule", DepotSQLite's "One
    /// file per account"). A declared `viewer` is never part of a pending change (the server's
    /// value shows), so there any other account's `viewer` is a server copy, and flagged.
    func pendingLocalEdit(_ item: CheckItem) -> Bool {
        guard !program.shape.declaresServerKeys, case .some(let viewer) = carried[item.value], viewer == item.viewer,
            let handle = model.owner(of: item.value), let entity = model.entities[handle]
        else { return false }
        return (entity.last == .some(item.value) && !entity.lastRemote) || entity.uncertain.contains(item.value)
    }
}
