import Depot
import DepotTesting
import Foundation

extension CheckApp {
    /// The schema of version 2 of the app: `tag` renamed `label`, queued writes left as written
    /// or migrated as the round says.
    var schemaV2: CollectionSchema {
        CollectionSchema(
            "items", entity: CheckItem.self,
            migrations: [
                Migration(to: 2, queuedWrites: program.shape.migratesQueued ? .migrate : .asWritten) { object in
                    if let tag = object.removeValue(forKey: "tag") { object["label"] = tag }
                }
            ])
    }

    /// ``CheckAction/migrate``: the store is migrated to version 2 of the app's schema; from then
    /// on the app writes `label`. A migration that fails is a violation (`MIGRATION`).
    func migrate(index: Int, outcome: inout CheckRunner.Outcome) async -> String {
        guard program.shape.migrates, schemaVersion == 1 else { return "skipped: no migration in this round" }
        do {
            let report = try await storage.migrate(schemaV2)
            schemaVersion = 2
            return "migrated \(report.recordsMigrated) records, \(report.queuedWritesMigrated) queued writes"
        } catch {
            outcome.violations.append(
                CheckViolation(kind: "MIGRATION", step: index, message: "storage.migrate failed: \(error)"))
            return "migration failed: \(error)"
        }
    }

    /// ``CheckAction/reread``: `read` twice in a row, each judged as a read; then the second read
    /// is judged for what the first stored (`FRESHNESS`): under `.cacheFirst` a fresh stored
    /// answer (a positive `max-age`, however huge) is used without a request; a revalidation of
    /// an answer that came with an `ETag` carries it (`If-None-Match`), whatever its `Age`.
    func reread(_ step: CheckStep, handle: Int, index: Int, outcome: inout CheckRunner.Outcome) async -> String {
        var read = step
        read.action = .read(handle: handle)
        var words: [String] = []
        var answers: [CheckAnswer] = []
        var record: StoredRecord?
        var sent: [RecordedRequest] = []
        // Whether the first read sent a request and was answered from the store: it stored nothing
        // (a 503 whose Retry-After is past the timeout, say), so the second is no revalidation.
        var fellBack = false
        for time in 0..<2 {
            let refusalsBefore = (server.refusals.count, server.inFlightConflicts)
            if time == 1, let id = held[handle]?.id {
                record = try? await storage.fetch(collection: "items", id: id)
            }
            let requests = stub.requests.count
            guard let answer = await CheckRunner.limited(CheckRunner.stepLimit, makeCall(read)) else {
                outcome.violations.append(
                    CheckViolation(kind: "HANG", step: index, message: "no answer within \(CheckRunner.stepLimit)"))
                return "HANG"
            }
            if time == 1 { sent = stub.requests.dropFirst(requests).filter { $0.method == "GET" } }
            if time == 0, case .one(_, .local) = answer, stub.requests.count > requests { fellBack = true }
            judge(read, index: index, answer: answer, refusalsBefore: refusalsBefore, outcome: &outcome)
            answers.append(answer)
            words.append(CheckRender.words(answer))
        }
        judgeFreshness(
            step, handle: handle, answers: fellBack ? [] : answers, record: record, sent: sent,
            flag: { outcome.violations.append(CheckViolation(kind: "FRESHNESS", step: index, message: $0)) })
        return words.joined(separator: "; then ") + " (\(sent.count) GET the second time)"
    }

    /// The positive `max-age` of the round's `Cache-Control`, if any (a huge one as 2^31).
    var maxAge: Int? {
        guard let text = program.shape.cacheControl, text.hasPrefix("max-age=") else { return nil }
        let digits = text.dropFirst("max-age=".count)
        let value = Int(digits) ?? (digits.allSatisfy(\.isNumber) ? 1 << 31 : 0)
        return value > 0 ? value : nil
    }

    func judgeFreshness(
        _ step: CheckStep, handle: Int, answers: [CheckAnswer], record: StoredRecord?, sent: [RecordedRequest],
        flag: (String) -> Void
    ) {
        // Both reads answered, the record synced in between (a pending change is not the server's
        // answer), online, the server's object readable.
        guard answers.count == 2, case .one(_?, _) = answers[0], case .one(let second?, _) = answers[1],
            record?.syncState == .synced, !offline, model.entities[handle]?.unreadable != true
        else { return }
        let shape = program.shape
        if step.strategy == .cacheFirst, maxAge != nil, !shape.hugeAge, let request = sent.first {
            flag(
                "read(\(second.id)) under .cacheFirst sent \(request.method) \(request.path) right after a read stored the answer with Cache-Control: \(shape.cacheControl ?? "-"): a fresh answer was not used"
            )
        }
        if shape.servesETags, step.strategy == .remoteFirst || step.strategy == .cacheFirst,
            let request = sent.first(where: { $0.path != "/items" && $0.header("If-None-Match") == nil })
        {
            flag(
                "read(\(second.id)) sent \(request.method) \(request.path) without If-None-Match right after a read stored the answer with its ETag\(shape.hugeAge ? " (Age: 2^31)" : ""): the stored entry lost its validator"
            )
        }
    }
}
