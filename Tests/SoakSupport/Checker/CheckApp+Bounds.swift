import Depot
import DepotTesting
import Foundation

extension CheckApp {
    /// The final checks of what the store keeps besides records, after the final full pull:
    /// no write body the server got mixed two versions' shapes (`SHAPE`, issue 32 #13); the HTTP
    /// cache within its bound, and no record's entry left for a record gone (`CACHE`, issue 32
    /// #8); no quarantined row left for an id the server holds readable or no longer holds
    /// (`QUARANTINE`); no page asked under another query than its link (`LINK`, issue 43 #1).
    func judgeStoreBounds(flag: (String, String) -> Void) async {
        for link in server.mangledLinks {
            flag("LINK", "\(link): a page asked under another query than the next link the server wrote")
        }
        for body in server.mixedShapes {
            flag("SHAPE", "\(body): a body with both v1's `tag` and v2's `label` is neither version's shape")
        }
        let everyState = Set(SyncState.allCases)
        guard
            let entries = try? await storage.fetch(
                collection: "__depot_http_cache", syncStates: everyState, after: nil, limit: 100_000),
            let quarantined = try? await storage.fetch(
                collection: "__depot_quarantine", syncStates: everyState, after: nil, limit: 100_000),
            let records = try? await storage.fetch(
                collection: "items", syncStates: everyState, after: nil, limit: 100_000),
            let limit = try? await storage.httpCacheLimit()
        else {
            flag("STORAGE", "reading the store's cache and quarantine failed")
            return
        }
        let bytes = entries.reduce(0) { $0 + ((try? JSON.object($1.object).serialized().count) ?? 0) }
        if entries.count > limit.entries || bytes > limit.bytes + limit.bytes / 10 {
            flag(
                "CACHE",
                "the HTTP cache holds \(entries.count) entries, \(bytes) bytes; its bound is \(limit.entries) entries, \(limit.bytes) bytes"
            )
        }
        let stored = Set(records.map { server.canonical($0.id) })
        let recordPrefix = "r\("items".utf8.count):items/"
        for entry in entries where entry.id.hasPrefix(recordPrefix) {
            let id = String(entry.id.dropFirst(recordPrefix.count))
            if !stored.contains(server.canonical(id)) {
                flag("CACHE", "the HTTP cache keeps an entry for \(id), which the store no longer holds")
            }
        }
        let corrupt = Set(server.objects.filter(\.corrupt).map(\.id))
        for row in quarantined where row.object["collection"]?.stringValue == "items" {
            // The server's id of the row (the row is kept under the app's identity key).
            let text = row.object["raw"]?.objectValue?["id"]?.stringValue ?? row.object["id"]?.stringValue
            guard let id = text.map(server.canonical), !corrupt.contains(id) else { continue }
            let readable = server.objects.contains { $0.id == id }
            flag(
                "QUARANTINE",
                "a quarantined row of \(id) stays after a full pull, though the server \(readable ? "holds it readable" : "no longer holds it")"
            )
        }
    }
}
