import Depot
import DepotTesting
import Foundation

/// What the app holds and did of lists and their children (rounds with
/// ``CheckServerShape/childCollection``). Used from the app's one task only.
final class CheckFamily {
    /// One write of a child: its title, the list it named (by handle, and the id the app held for
    /// it then), and whether its call answered with the child (the app was told it is kept).
    struct Write {
        var title: String
        var list: Int
        var named: Int
        var acknowledged = false
    }

    /// The server side.
    let server: CheckFamilyServer
    /// The session lists and children go through (no credential: the server does not ask).
    let session: any Networking
    /// Each list's id as the app holds it: its create's answer.
    var lists: [Int: Int] = [:]
    /// Every id an answer gave the app for a list.
    var given: Set<Int> = []
    /// The children the app holds (their create answered).
    var held: Set<Int> = []
    /// Each child's writes, in order.
    var writes: [Int: [Write]] = [:]
    /// The forwarder of lists and children, and the store it forwards (a restart opens another).
    var forwarder: (storage: Storage, forwarder: Forwarder)?

    init(stub: StubServer, timeout: Duration) {
        server = CheckFamilyServer(on: stub)
        session = NetworkingSession(
            url: stub.url,
            configuration: SessionConfiguration(
                timeout: timeout,
                retryPolicy: RetryPolicy(
                    maximumAttempts: 3, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(50))
            ))
    }
}

/// How a call of lists or children ended.
enum CheckFamilyAnswer: Sendable {
    case list(CheckList, Origin)
    case child(CheckChild, Origin)
    case deleted(Origin)
    case flushed(ForwardingReport)
    case synchronized
    case failed(String)

    /// A failure with the code of `error`.
    static func failure(_ error: any Error) -> CheckFamilyAnswer {
        .failed((error as? DepotError).map { $0.code.description } ?? "\(type(of: error))")
    }

    var words: String {
        switch self {
        case .list(let list, let origin): "\(origin): list \(list.id)"
        case .child(let child, let origin): "\(origin): \(child.id)=\(child.title) in \(child.listID)"
        case .deleted(let origin): "\(origin)"
        case .flushed(let report): "delivered \(report.delivered), refused \(report.rejected.count)"
        case .synchronized: "done"
        case .failed(let code): "failed .\(code)"
        }
    }
}

extension CheckApp {
    /// The repositories of lists and children over the store open now, through `strategy`.
    func family(_ family: CheckFamily, _ strategy: CheckStrategy) -> (CheckLists, CheckChildren) {
        let rule: Strategy = strategy == .localFirst ? .localFirst : .remoteFirst
        return (
            CheckLists(store: family.session, storage: storage, strategy: rule),
            CheckChildren(store: family.session, storage: storage, strategy: rule)
        )
    }

    /// The forwarder of lists and children over the store open now (one per store, as an app
    /// keeps one).
    func familyForwarder(_ family: CheckFamily) -> Forwarder {
        if let (open, forwarder) = family.forwarder, open as AnyObject === storage as AnyObject { return forwarder }
        let (lists, children) = self.family(family, .localFirst)
        let forwarder = Forwarder(
            storage: storage, repositories: [lists, children],
            configuration: ForwarderConfiguration(
                baseDelay: .milliseconds(5), maximumDelay: .milliseconds(20), pollInterval: .milliseconds(200)))
        family.forwarder = (storage, forwarder)
        return forwarder
    }

    /// Runs a step of lists and children; returns its log words. A child's answer names the
    /// app's id, and the list the app named: the id it held, or that list's server id (`APP ID`).
    func runChild(_ step: CheckStep, _ action: CheckChildAction, index: Int, outcome: inout CheckRunner.Outcome)
        async -> String
    {
        guard let family else { return "skipped: no lists in this round" }
        let (lists, children) = self.family(family, step.strategy)
        let call: @Sendable () async -> CheckFamilyAnswer
        var write: (child: Int, write: CheckFamily.Write)?
        switch action {
        case .createList(let list):
            call = {
                do {
                    let answer = try await lists.create(["title": .string("l\(list)")]).value
                    return .list(answer.value, answer.origin)
                } catch { return .failure(error) }
            }
        case .createChild(let child, let list, let title), .moveChild(let child, let list, let title):
            guard let named = family.lists[list] else { return "skipped: the app holds no l\(list)" }
            let creates: Bool
            if case .createChild = action { creates = true } else { creates = false }
            if !creates, !family.held.contains(child) { return "skipped: the app holds no c\(child)" }
            let entity = CheckChild(id: "c\(child)", title: title, listID: named)
            write = (child, CheckFamily.Write(title: title, list: list, named: named))
            family.writes[child, default: []].append(write!.write)
            call = {
                do {
                    let answer = try await creates ? children.create(entity).value : children.update(entity).value
                    return .child(answer.value, answer.origin)
                } catch { return .failure(error) }
            }
        case .deleteList(let list):
            guard let id = family.lists[list] else { return "skipped: the app holds no l\(list)" }
            call = {
                do {
                    return .deleted(try await lists.delete(id: id).value.origin)
                } catch { return .failure(error) }
            }
        case .synchronize(let ofLists):
            call = {
                do {
                    if ofLists {
                        _ = try await lists.synchronize().value
                    } else {
                        _ = try await children.synchronize().value
                    }
                    return .synchronized
                } catch { return .failure(error) }
            }
        case .flush:
            let forwarder = familyForwarder(family)
            call = {
                do {
                    return .flushed(try await forwarder.flush().value)
                } catch { return .failure(error) }
            }
        }
        inject(step.fault)
        let answer = await CheckRunner.limited(CheckRunner.stepLimit, call)
        await clearFaults(after: step)
        guard let answer else {
            outcome.violations.append(
                CheckViolation(kind: "HANG", step: index, message: "no answer within \(CheckRunner.stepLimit)"))
            return "HANG"
        }
        switch answer {
        case .list(let list, let origin):
            if case .createList(let handle) = action {
                family.lists[handle] = list.id
                family.given.insert(list.id)
                let assigned = family.server.assigned["l\(handle)"]
                if origin == .remote, list.id != assigned {
                    outcome.violations.append(
                        CheckViolation(
                            kind: "APP ID", step: index,
                            message:
                                "l\(handle)'s create answered from the server with id \(list.id); the server gave it \(assigned.map(String.init) ?? "none")"
                        ))
                }
            }
        case .child(let child, _):
            guard let (handle, made) = write else { break }
            family.held.insert(handle)
            if var writes = family.writes[handle], !writes.isEmpty {
                writes[writes.count - 1].acknowledged = true
                family.writes[handle] = writes
            }
            let serverID = family.server.assigned["l\(made.list)"]
            if child.id != "c\(handle)" || (child.listID != made.named && child.listID != serverID) {
                outcome.violations.append(
                    CheckViolation(
                        kind: "APP ID", step: index,
                        message:
                            "c\(handle)'s write answered \(child.id) in list \(child.listID); the app wrote c\(handle) in \(made.named) (l\(made.list), on the server \(serverID.map(String.init) ?? "none"))"
                    ))
            }
        default:
            break
        }
        return answer.words
    }

    /// The final checks of lists and children, the server online with no faults: their outbox
    /// flushed until nothing is pending (with what is left, lists and children synchronized, which
    /// sends their open batches again, and flushed again), then
    ///
    /// - `TEMPORARY ID`: no request carried an id Depot made for a list (one an answer gave the
    ///   app that the server never gave), in its path or anywhere in its body;
    /// - `REFERENCE`: every child on the server names the server's id of the list its write named
    ///   (that list's create delivered); a child whose last write names a list whose create never
    ///   reached the server is refused unsent with a typed error (an outbox refusal without a
    ///   status), not sent and not held for ever (`CHILD STUCK`: pending with no refusal of its
    ///   entity to wait behind); a child every write of which
    ///   named a delivered list holds its last write on the server (`CHILD LOST`);
    /// - `APP ID`: the server holds children under the app's ids only.
    func settleChildren(_ outcome: inout CheckRunner.Outcome) async {
        guard let family else { return }
        func flag(_ kind: String, _ message: String) {
            outcome.violations.append(CheckViolation(kind: kind, step: nil, message: message))
        }
        let forwarder = familyForwarder(family)
        let (lists, children) = self.family(family, .localFirst)
        let storage = self.storage
        let pending = OutboxQuery(collections: ["lists", "children"])
        let settled = await CheckRunner.limited(CheckRunner.stepLimit) {
            // As patient as the items' settle: an entry may wait for its backoff (a send that
            // failed while the server was offline), so flushes go on while entries are pending, up
            // to 3 s and at least 5 flushes.
            let flushUntilSettled: @Sendable () async -> Bool = {
                let patience = ContinuousClock.now + .seconds(3)
                var flushes = 0
                repeat {
                    _ = try? await forwarder.flush().value
                    flushes += 1
                    if (try? await storage.outboxCount(pending)) == 0 { return true }
                    if ContinuousClock.now > patience && flushes >= 5 { return false }
                    if await Self.waitsOnlyOnTheApp(storage, pending) { return false }
                    try? await Task.sleep(for: .milliseconds(250))
                } while true
            }
            // A batch that may have reached the server (a `synchronize()` whose send met a refused
            // connect after a connection may have been open: the transport's fact is "maybe sent")
            // stays open until its answer is known, and its entries go again only in it, under its
            // key, sent by the collection's next `synchronize()`; no forwarder pass claims them
            // (`OutboxBatch`). An app that synchronized once synchronizes again, so the settle does
            // what the items' settle does after its flushes: lists, then children (a child's
            // create waits for its list's), each sending its open batches first, then flushes
            // again. Judging after the flushes alone flagged such a child as stuck (issue 42).
            if await !flushUntilSettled() {
                _ = try? await lists.synchronize().value
                _ = try? await children.synchronize().value
                _ = await flushUntilSettled()
            }
            return try? await storage.outbox(OutboxQuery(collections: ["lists", "children"], selection: .all))
        }
        guard let settled else { return flag("HANG", "the final flush of lists and children did not end") }
        guard let entries = settled else { return flag("STORAGE", "reading the outbox of lists and children failed") }
        // An entity with a refused entry is the app's to resolve (retry or discard): its later
        // writes wait behind the refusal, as every entity's do.
        let refused = Set(entries.filter { $0.rejection != nil }.map { "\($0.collection)/\($0.entityID)" })
        for entry in entries where entry.rejection == nil && !refused.contains("\(entry.collection)/\(entry.entityID)")
        {
            flag(
                "CHILD STUCK",
                "outbox entry \(entry.sequence) (\(entry.operation) \(entry.collection) \(entry.entityID)) still pending: \(entry.lastError ?? "-")"
            )
        }
        let assigned = family.server.assigned
        let temporary = family.given.subtracting(assigned.values)
        for request in stub.requests {
            let components = request.path.split(separator: "/").map(String.init)
            for id in temporary
            where components.contains(String(id)) || request.json.map({ Self.mentions($0, id) }) == true {
                flag("TEMPORARY ID", "\(request.method) \(request.path) carried \(id), an id Depot made for a list")
            }
        }
        var titles: [String: (child: Int, write: CheckFamily.Write)] = [:]
        for (child, writes) in family.writes {
            for write in writes { titles[write.title] = (child, write) }
        }
        let onServer = family.server.children
        for object in onServer {
            let id = object["id"]?.stringValue ?? "-"
            let title = object["title"]?.stringValue ?? "-"
            guard let (child, write) = titles[title], id == "c\(child)" else {
                flag("APP ID", "the server holds child \(id) (\(title)), which no write of the app made")
                continue
            }
            guard let serverID = assigned["l\(write.list)"] else {
                flag(
                    "REFERENCE",
                    "the server holds \(id) (\(title)) naming \(object["listID"].map { "\($0)" } ?? "nothing"): its write named l\(write.list), whose create never reached the server"
                )
                continue
            }
            if object["listID"]?.intValue != serverID {
                flag(
                    "REFERENCE",
                    "the server holds \(id) (\(title)) in list \(object["listID"].map { "\($0)" } ?? "none"); its write named l\(write.list), \(serverID) on the server"
                )
            }
        }
        for (child, writes) in family.writes.sorted(by: { $0.key < $1.key }) {
            guard let last = writes.last, writes.allSatisfy(\.acknowledged) else { continue }
            let refusals = entries.filter { $0.collection == "children" && $0.entityID == "c\(child)" }
            if assigned["l\(last.list)"] == nil {
                if !refusals.contains(where: { $0.rejection != nil && $0.rejection?.status == nil }) {
                    flag(
                        "REFERENCE",
                        "c\(child)'s last write (\(last.title)) names l\(last.list), whose create never reached the server, and no write of c\(child) was refused unsent"
                    )
                }
            } else if writes.allSatisfy({ assigned["l\($0.list)"] != nil }),
                onServer.first(where: { $0["id"]?.stringValue == "c\(child)" })?["title"]?.stringValue != last.title
            {
                flag(
                    "CHILD LOST",
                    "c\(child)'s last write (\(last.title), in l\(last.list)) is not what the server holds: \(onServer.first { $0["id"]?.stringValue == "c\(child)" }?["title"].map { "\($0)" } ?? "nothing")"
                )
            }
        }
    }

    /// Whether `json` holds `id` anywhere, as a number or as text.
    static func mentions(_ json: JSON, _ id: Int) -> Bool {
        switch json {
        case .integer(let number): number == Int64(id)
        case .string(let text): text == String(id)
        case .array(let elements): elements.contains { mentions($0, id) }
        case .object(let object): object.values.contains { mentions($0, id) }
        default: false
        }
    }
}
