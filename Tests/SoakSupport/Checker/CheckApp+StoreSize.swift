import Depot
import DepotTesting
import Foundation

extension CheckApp {
    /// The most delivery marks left when no read is open: those a removal waits to gather, and a
    /// few more (as `DeliveryMarkBoundTests` bounds them).
    static let deliveryMarkBound = 40

    /// The most values of entries gone that a list of Depot's own (the keys answered "in flight",
    /// the open batches) may keep: they go the next time the list is written, not with the entry.
    static let staleListValues = 8

    /// The final check that the store's size follows what it holds, not how many writes made it
    /// (`SIZE`, issue 43): after the final flushes and full pull, every row Depot keeps beside the
    /// app's records belongs to something still there. A program's creates, updates and deletes
    /// are a churn: a row kept per write or per entity after its entity is gone (an id move, a
    /// temporary id, a tombstone, an outbox entry that is not refused, a key-in-flight note or open
    /// batch of an entry gone) grows with every cycle; delivery marks stay within their bound.
    /// An id move from an id Depot made kept after its entity is gone is `MOVES` (issue 43): of
    /// the items, a move recorded `"temporary": true`; of the lists (whose ids the server assigns
    /// and Depot makes offline), any move; so is the row that finds an entity's moves
    /// (`__depot_moved_ids_to`) kept after it. A move from an id the app chose stays by design:
    /// the app may still hold that id, and a re-create under an id the server spells otherwise
    /// (`updateAfterRecreateOfLowercasedUUID`) needs it.
    func judgeStoreSize(flag: (String, String) -> Void) async {
        let everyState = Set(SyncState.allCases)
        func rows(_ collection: String) async throws -> [StoredRecord] {
            try await storage.fetch(collection: collection, syncStates: everyState, after: nil, limit: 100_000)
        }
        let read: (items: [StoredRecord], entries: [OutboxEntry], depot: [String: [StoredRecord]])
        let lists: [StoredRecord]
        do {
            var depot: [String: [StoredRecord]] = [:]
            for collection in [
                "__depot_deliveries", "__depot_moved_ids", "__depot_moved_ids_to", "__depot_temporary_ids",
                "__depot_keys_in_flight", "__depot_outbox_batches", "__depot_http_cache_lists",
                "__depot_http_cache_usage",
            ] {
                depot[collection] = try await rows(collection)
            }
            read = (try await rows("items"), try await storage.outbox(OutboxQuery(selection: .all)), depot)
            lists = program.shape.childCollection ? try await rows("lists") : []
        } catch {
            flag("STORAGE", "reading the store's own collections failed: \(error)")
            return
        }
        let (items, allEntries, depot) = read
        // The items' entries: the lists' and children's have their own judges (`CHILD STUCK`).
        let entries = allEntries.filter { $0.collection == "items" }
        var counts: [String] = ["\(items.count) records", "\(entries.count) outbox entries"]
        counts += depot.sorted { $0.key < $1.key }.map { "\($0.value.count) \($0.key.dropFirst("__depot_".count))" }
        let summary = counts.joined(separator: ", ")
        // What is still there: the store's records, and the entities of the entries left.
        let held = Set(items.map { server.canonical($0.id) }).union(entries.map { server.canonical($0.entityID) })
        for entry in entries where entry.rejection == nil {
            flag(
                "SIZE",
                "outbox entry \(entry.sequence) (\(entry.operation) \(entry.entityID)) stays, neither delivered nor refused (\(summary))"
            )
        }
        for record in items where record.syncState == .deleted && !entries.contains(where: { $0.entityID == record.id })
        {
            flag("SIZE", "a tombstone of \(record.id) stays with no delete left to send (\(summary))")
        }
        let marks = depot["__depot_deliveries", default: []].filter { !$0.id.hasPrefix("#") }.count
        if marks > Self.deliveryMarkBound {
            flag("SIZE", "\(marks) delivery marks stay, more than \(Self.deliveryMarkBound) (\(summary))")
        }
        let prefix = "\("items".utf8.count):items/"
        // The lists' ids as the store holds them: the server assigns them, no other spelling.
        let heldLists = Set(lists.map(\.id)).union(allEntries.filter { $0.collection == "lists" }.map(\.entityID))
        func isHeld(_ collection: String, _ id: String) -> Bool {
            collection == "items" ? held.contains(server.canonical(id)) : heldLists.contains(id)
        }
        // The moves the store recorded, by collection and id: `from → to`.
        var movedTo: [String: [String: String]] = [:]
        for move in depot["__depot_moved_ids", default: []] {
            for collection in ["items", "lists"] where move.id.hasPrefix("\(collection.utf8.count):\(collection)/") {
                let from = String(move.id.dropFirst("\(collection.utf8.count):\(collection)/".count))
                movedTo[collection, default: [:]][from] = move.object["to"]?.stringValue
            }
        }
        // An id the store holds, or one whose recorded moves lead to one it holds: an entity the
        // server gave an id, then another (a batch's upsert of an id it no longer had), is held
        // under the last, and the moves to the ids between stay with it.
        func leadsToHeld(_ collection: String, _ id: String) -> Bool {
            var current = id
            var visited: Set<String> = [id]
            while true {
                if isHeld(collection, current) { return true }
                guard let next = movedTo[collection]?[current], visited.insert(next).inserted else { return false }
                current = next
            }
        }
        for collection in ["items", "lists"] {
            let keyPrefix = "\(collection.utf8.count):\(collection)/"
            // A list's id is the server's or one Depot made (the app never names one): every
            // move of a list is from an id Depot made, whatever the move recorded.
            for move in depot["__depot_moved_ids", default: []]
            where move.id.hasPrefix(keyPrefix) && (collection == "lists" || move.object["temporary"] == .bool(true)) {
                let from = String(move.id.dropFirst(keyPrefix.count))
                let target = move.object["to"]?.stringValue ?? "?"
                if !leadsToHeld(collection, target) && !isHeld(collection, from) {
                    let gone = "an entity the store no longer holds"
                    flag("MOVES", "the \(collection) id move \(from) → \(target) stays for \(gone) (\(summary))")
                }
            }
            for arrivals in depot["__depot_moved_ids_to", default: []] where arrivals.id.hasPrefix(keyPrefix) {
                let id = String(arrivals.id.dropFirst(keyPrefix.count))
                if !leadsToHeld(collection, id) {
                    flag(
                        "MOVES",
                        "the moves to \(collection) \(id) are still listed, an entity the store no longer holds (\(summary))"
                    )
                }
            }
        }
        for temporary in depot["__depot_temporary_ids", default: []] where temporary.id.hasPrefix(prefix) {
            let id = String(temporary.id.dropFirst(prefix.count))
            if !held.contains(server.canonical(id)) {
                flag("SIZE", "the temporary id \(id) stays for an entity the store no longer holds (\(summary))")
            }
        }
        for (collection, key) in [("__depot_keys_in_flight", "notes"), ("__depot_outbox_batches", "batches")] {
            for row in depot[collection, default: []] {
                let values = row.object[key]?.arrayValue ?? []
                // A note whose entry is gone is dropped the next time a note is written, so notes
                // of entries gone since the last one stay: a few, not one per cycle.
                if values.count > entries.count + Self.staleListValues {
                    flag(
                        "SIZE",
                        "\(collection) holds \(values.count) values for \(entries.count) outbox entries (\(summary))")
                }
            }
        }
        // One list token per collection (items; lists and children in rounds that have them),
        // one usage row.
        let collections = program.shape.childCollection ? 3 : 1
        if depot["__depot_http_cache_lists", default: []].count > collections
            || depot["__depot_http_cache_usage", default: []].count > 1
        {
            flag("SIZE", "the HTTP cache's own rows grew (\(summary))")
        }
    }
}
