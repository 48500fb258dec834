import Depot
import DepotTesting

extension SoakModel {
    /// The server's objects and the local records by the program's entity ids.
    struct View {
        /// The value each entity's server object holds.
        var server: [String: String] = [:]
        /// The id of each entity's server object, when the server assigns ids.
        var serverIDs: [String: String] = [:]
        /// Each entity's local record.
        var local: [String: StoredRecord] = [:]
        /// What cannot be matched.
        var problems: [String] = []
    }

    /// `outcome` by entity: by id when the program chose the ids; by value when the server
    /// assigned them (duplicate creates of a server that ignores keys left out: ``orphans(in:)``).
    func view(of outcome: Outcome) -> View {
        var view = View()
        let orphans = modes.assignsIDs && modes.ignoresKeys ? self.orphans(in: outcome) : []
        for object in outcome.serverObjects {
            guard let id = object["id"]?.stringValue else {
                view.problems.append("a server object without a string id: \(object)")
                continue
            }
            let value = object["value"]?.stringValue ?? "<no value>"
            guard modes.assignsIDs else {
                view.server[id] = value
                if possible[id] == nil { view.problems.append("\(id): on the server, never created by the program") }
                continue
            }
            if orphans.contains(id) { continue }
            guard let entity = owners[value] else {
                view.problems.append("server object \(id) holds \(value), which the program never wrote")
                continue
            }
            if let first = view.serverIDs[entity] {
                view.problems.append("APPLIED TWICE \(entity): two server objects, \(first) and \(id)")
                continue
            }
            view.server[entity] = value
            view.serverIDs[entity] = id
        }
        for record in outcome.localRecords where record.collection == "items" && !orphans.contains(record.id) {
            guard modes.assignsIDs else {
                view.local[record.id] = record
                continue
            }
            let value = record.object["value"]?.stringValue ?? "<no value>"
            guard let entity = possible[record.id] != nil ? record.id : owners[value] else {
                view.problems.append("local record \(record.id) holds \(value), which the program never wrote")
                continue
            }
            if let first = view.local[entity] {
                view.problems.append("\(entity): two local records, \(first.id) and \(record.id)")
                continue
            }
            view.local[entity] = record
        }
        return view
    }

    /// The server objects a server that ignores keys created more than once for one create (a
    /// POST sent again after its answer was lost): of the objects one key's POSTs made, the one a
    /// later write reached (or the local store holds, or else the last) is the entity's; the
    /// others are orphans, the documented price of a server that ignores keys.
    func orphans(in outcome: Outcome) -> Set<String> {
        var created: [String: [String]] = [:]
        var touched = Set<String>()
        for write in outcome.applied {
            guard let id = write.id else { continue }
            if write.method == "POST", let key = write.idempotencyKey {
                created[key, default: []].append(id)
            } else {
                touched.insert(id)
            }
        }
        let stored = Set(outcome.localRecords.map(\.id))
        var orphans = Set<String>()
        for ids in created.values where ids.count > 1 {
            var kept = ids.filter(touched.contains)
            if kept.isEmpty { kept = [ids.last(where: stored.contains) ?? ids[ids.count - 1]] }
            orphans.formUnion(ids.filter { !kept.contains($0) })
        }
        return orphans
    }
}
