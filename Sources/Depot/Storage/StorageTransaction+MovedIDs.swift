import Foundation

/// Where the ids the server replaced are kept: one synced record per moved id, in a collection of
/// Depot's own, so the map survives restarts on every storage without a schema of its own.
enum MovedIDs {
    static let collection = "__depot_moved_ids"

    /// Where the moves to an entity are found from its side: one synced record per entity some id
    /// moved to, under the entity's key (``key(collection:id:)``), listing the old ids (`"from"`).
    /// It goes with the entity (``StorageTransaction/forgetTemporaryMoves(collection:to:)``), so
    /// finding the moves of an entity that went reads one row, never every move.
    static let arrivals = "__depot_moved_ids_to"

    /// The record id of `id` of `collection`: the collection's length first, so no two pairs meet.
    static func key(collection: String, id: String) -> String {
        "\(collection.utf8.count):\(collection)/\(id)"
    }

    /// The collection and id a ``key(collection:id:)`` names; nil for a text that is not one.
    static func entity(ofKey key: Substring) -> (collection: String, id: String)? {
        guard let colon = key.firstIndex(of: ":"), let length = Int(key[..<colon]), length >= 0 else { return nil }
        let rest = key.utf8[key.utf8.index(after: colon)...]
        guard rest.count > length else { return nil }
        let split = rest.index(rest.startIndex, offsetBy: length)
        guard rest[split] == UInt8(ascii: "/"), let collection = String(rest[..<split]),
            let id = String(rest[rest.index(after: split)...])
        else { return nil }
        return (collection, id)
    }

    /// The text of an id as the store keys it: a string as it is, an integer in decimal.
    static func idText(_ json: JSON?) -> String? {
        switch json {
        case .string(let text): text
        case .integer(let number): String(number)
        default: nil
        }
    }

    /// `object` with every field in `fields` that holds `oldID` set to the value `fields` gives
    /// (the entity's id under its new value, in the type the server gave it).
    static func rewrite(_ object: JSONObject, from oldID: String, fields: JSONObject) -> JSONObject {
        var object = object
        for (key, value) in fields where idText(object[key]) == oldID { object[key] = value }
        return object
    }

    /// The fields of `local` holding `oldID` whose value in `server` is `newID`: where the
    /// entity's object names its id (`id`, or whatever the model calls it), with the server's value.
    /// Without the local object, every field of `server` holding `newID`.
    static func identityFields(local: JSONObject?, oldID: String, server: JSONObject, newID: String) -> JSONObject {
        var fields: JSONObject = [:]
        for (key, value) in server where idText(value) == newID && (local.map { idText($0[key]) == oldID } ?? true) {
            fields[key] = value
        }
        return fields
    }
}

extension StorageTransaction {
    /// Remembers that the server replaced `oldID` of `collection` with `newID`, and the object
    /// fields (`fields`: key → the server's value) that name it, so a write the app makes later
    /// under the old id reaches the entity the server made (``currentID(collection:id:)``). A
    /// record naming `oldID` through a declared reference (``EntityReference``) and its queued
    /// writes name `newID` from now on.
    ///
    /// The move records whether Depot made `oldID` (`"temporary": true`, read from the store's
    /// fact before it is forgotten here): such a move goes with the entity
    /// (``forgetTemporaryMoves(collection:to:)``); a move from an id the app chose stays (the app
    /// may still hold it). A move recorded before this fact was kept counts as the app's.
    func recordIDMove(collection: String, from oldID: String, to newID: String, fields: JSONObject) throws {
        guard oldID != newID else { return }
        var move: JSONObject = ["to": .string(newID), "fields": .object(fields)]
        if try isTemporaryID(collection: collection, id: oldID) { move["temporary"] = .bool(true) }
        try upsert(
            StoredRecord(
                collection: MovedIDs.collection, id: MovedIDs.key(collection: collection, id: oldID),
                object: move, syncState: .synced))
        try noteArrival(collection: collection, from: oldID, to: newID)
        // The records naming the id Depot made for it, by a declared reference, name the server's.
        try moveReferences(toCollection: collection, from: oldID, to: newID, fields: fields)
        // The server named it: the id Depot made for it is no longer one to leave out.
        try forgetTemporaryID(collection: collection, id: oldID)
    }

    /// Where `id` of `collection` lives now: the id the server gave it and the fields to rewrite,
    /// following moves of moves; nil when it never moved. A chain that loops ends where it loops.
    func currentID(collection: String, id: String) throws -> (id: String, fields: JSONObject)? {
        var current = id
        var fields: JSONObject = [:]
        var visited: Set<String> = [id]
        while let moved = try fetch(
            collection: MovedIDs.collection, id: MovedIDs.key(collection: collection, id: current)),
            case .string(let next)? = moved.object["to"], visited.insert(next).inserted
        {
            current = next
            fields = moved.object["fields"]?.objectValue ?? fields
        }
        return current == id ? nil : (current, fields)
    }

    /// Forgets that `id` of `collection` moved: the app made a new entity under that id.
    func forgetIDMove(collection: String, id: String) throws {
        _ = try delete(collection: MovedIDs.collection, id: MovedIDs.key(collection: collection, id: id))
    }

    /// Adds `oldID` to the ids that moved to `newID` (``MovedIDs/arrivals``).
    private func noteArrival(collection: String, from oldID: String, to newID: String) throws {
        let key = MovedIDs.key(collection: collection, id: newID)
        var from = try fetch(collection: MovedIDs.arrivals, id: key)?.object["from"]?.arrayValue ?? []
        guard !from.contains(.string(oldID)) else { return }
        from.append(.string(oldID))
        try upsert(
            StoredRecord(collection: MovedIDs.arrivals, id: key, object: ["from": .array(from)], syncState: .synced))
    }

    /// The entity `id` of `collection` is gone, as the server said (its delete answered, its
    /// `404`, a pull's deletion or prune): the moves to it from ids Depot made go with it, through
    /// chains of moves, and each such id is retired (``TemporaryIDs/retire(collection:id:to:fields:)``),
    /// so an app's stale handle naming it is answered `.notFound` without a request (a reference
    /// to it still names the gone entity's id, as it did while the move was kept). A move from an
    /// id the app chose stays (the app may still hold that id, and a new entity the server spells
    /// otherwise may take it). Reads the entity's ``MovedIDs/arrivals`` row, never every move;
    /// a listed id whose move no longer points here (moved again since, or forgotten) is left as
    /// it is.
    func forgetTemporaryMoves(collection: String, to id: String) throws {
        var targets = [id]
        var visited: Set<String> = [id]
        while let target = targets.popLast() {
            let key = MovedIDs.key(collection: collection, id: target)
            guard let arrivals = try fetch(collection: MovedIDs.arrivals, id: key) else { continue }
            _ = try delete(collection: MovedIDs.arrivals, id: key)
            for case .string(let oldID) in arrivals.object["from"]?.arrayValue ?? [] {
                let moveKey = MovedIDs.key(collection: collection, id: oldID)
                guard let move = try fetch(collection: MovedIDs.collection, id: moveKey),
                    move.object["to"] == .string(target)
                else { continue }
                // The moves to this one go too, or stay, by their own fact.
                if visited.insert(oldID).inserted { targets.append(oldID) }
                guard move.object["temporary"] == .bool(true) else { continue }
                _ = try delete(collection: MovedIDs.collection, id: moveKey)
                TemporaryIDs.retire(
                    collection: collection, id: oldID, to: target, fields: move.object["fields"]?.objectValue ?? [:])
            }
        }
    }
}
