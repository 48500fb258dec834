import Foundation

/// The declared references (``EntityReference``) of records to entities whose ids Depot made:
/// facts recorded by the local write that stored the reference, in its transaction, never read
/// from an id's spelling. Two sides, each a synced record of a collection of Depot's own:
///
/// - the referring record's (``collection``, keyed by its collection and id): each reference it
///   made to an id that was temporary when written, read before a write of it is sent
///   (``StorageTransaction/referenceHold(_:)``);
/// - the parent's temporary-id record (``TemporaryIDs``): the records referring to it, rewritten
///   when the server gives the parent its id
///   (``StorageTransaction/moveReferences(toCollection:from:to:fields:)``).
enum ReferenceFacts {
    static let collection = "__depot_references"

    /// One reference: `key` of a record holds `id` of `collection` (the parent's side lists the
    /// referring records the same way: their collection and id, and the key).
    struct Fact: Hashable, Sendable {
        var key: String
        var collection: String
        var id: String

        var json: JSON { .object(["key": .string(key), "collection": .string(collection), "id": .string(id)]) }
    }

    /// The facts an array of ``Fact/json`` holds; a stored value of another shape holds none.
    static func facts(_ json: JSON?) -> [Fact] {
        (json?.arrayValue ?? []).compactMap { element in
            guard let object = element.objectValue, let key = object["key"]?.stringValue,
                let collection = object["collection"]?.stringValue, let id = object["id"]?.stringValue
            else { return nil }
            return Fact(key: key, collection: collection, id: id)
        }
    }

    /// `newID` as a reference that held `old` writes it: an integer for an integer that the new id
    /// spells as one, else the server's value for the id when it gave one (`fields`), else text.
    static func value(_ newID: String, like old: JSON?, fields: JSONObject) -> JSON {
        if case .integer? = old, let number = Int64(newID) { return .integer(number) }
        if case .string? = old { return .string(newID) }
        return fields.values.first { MovedIDs.idText($0) == newID } ?? .string(newID)
    }
}

extension StorageTransaction {
    /// `object` with each of `references` whose target's id moved (its create was delivered, and
    /// the server gave it another id) naming the id it has now; a target deleted since, whose id
    /// Depot had made (``TemporaryIDs/retired(collection:id:)``), by the id the server gave it.
    func followingMovedReferences(_ object: JSONObject, references: [EntityReference]) throws -> JSONObject {
        var object = object
        for reference in references {
            guard let id = MovedIDs.idText(object[reference.key]),
                let current = try referencedID(collection: reference.collection, id: id)
            else { continue }
            object[reference.key] = ReferenceFacts.value(
                current.id, like: object[reference.key], fields: current.fields)
        }
        return object
    }

    /// Where a reference to `id` of `collection` points: where the id moved
    /// (``currentID(collection:id:)``), or for an id Depot made whose entity is gone since
    /// (``TemporaryIDs/retired(collection:id:)``), that entity's id; nil when it never moved.
    private func referencedID(collection: String, id: String) throws -> (id: String, fields: JSONObject)? {
        if let current = try currentID(collection: collection, id: id) { return current }
        guard let retired = TemporaryIDs.retired(collection: collection, id: id) else { return nil }
        return (retired.id, retired.fields)
    }

    /// Records that record `id` of `collection`, stored as `object`, names through each of
    /// `references` an id Depot made (``isTemporaryID(collection:id:)``), on both sides (see
    /// ``ReferenceFacts``). A reference to any other id records nothing.
    func recordReferences(_ references: [EntityReference], collection: String, id: String, object: JSONObject)
        throws
    {
        var made: [ReferenceFacts.Fact] = []
        for reference in references {
            guard let target = MovedIDs.idText(object[reference.key]),
                try isTemporaryID(collection: reference.collection, id: target)
            else { continue }
            made.append(ReferenceFacts.Fact(key: reference.key, collection: reference.collection, id: target))
        }
        guard !made.isEmpty else { return }
        let key = MovedIDs.key(collection: collection, id: id)
        var facts = ReferenceFacts.facts(try fetch(collection: ReferenceFacts.collection, id: key)?.object["refs"])
        let new = made.filter { !facts.contains($0) }
        guard !new.isEmpty else { return }
        for fact in new {
            facts.append(fact)
            let parentKey = MovedIDs.key(collection: fact.collection, id: fact.id)
            guard var parent = try fetch(collection: TemporaryIDs.collection, id: parentKey) else { continue }
            var referrers = ReferenceFacts.facts(parent.object["referrers"])
            let referrer = ReferenceFacts.Fact(key: fact.key, collection: collection, id: id)
            guard !referrers.contains(referrer) else { continue }
            referrers.append(referrer)
            parent.object["referrers"] = .array(referrers.map(\.json))
            try upsert(parent)
        }
        try upsert(
            StoredRecord(
                collection: ReferenceFacts.collection, id: key, object: ["refs": .array(facts.map(\.json))],
                syncState: .synced))
    }

    /// The one decision every road that sends `entry` makes from the references its record
    /// declared (``recordReferences(_:collection:id:object:)``): it goes; it waits, naming an
    /// entity whose id Depot made and whose create is queued, not delivered yet (the server would
    /// not know the id); or it is refused unsent, naming one whose create will never reach the
    /// server: the outbox holds no write of that entity (the app discarded its create, or deleted
    /// it before it was sent), so nothing will ever give the server's id.
    func referenceHold(_ entry: OutboxEntry) throws -> ReferenceHold {
        let references = try temporaryReferences(entry)
        guard !references.isEmpty else { return .goes }
        for fact in references where try outboxEntries(collection: fact.collection, entityID: fact.id).isEmpty {
            return .refused(fact)
        }
        return .waits
    }

    /// The references of `entry`'s payload, as its record declared them, to ids Depot made that
    /// the server has not replaced yet.
    private func temporaryReferences(_ entry: OutboxEntry) throws -> [ReferenceFacts.Fact] {
        guard case .object(let payload)? = entry.payload,
            let stored = try fetch(
                collection: ReferenceFacts.collection,
                id: MovedIDs.key(collection: entry.collection, id: entry.entityID))
        else { return [] }
        return try ReferenceFacts.facts(stored.object["refs"]).filter { fact in
            try MovedIDs.idText(payload[fact.key]) == fact.id && isTemporaryID(collection: fact.collection, id: fact.id)
        }
    }

    /// The server gave `newID` to the entity of `collection` Depot had made `oldID` for: every
    /// record that named `oldID` through a declared reference (and is not synced) and each of its
    /// queued writes name `newID` now, in the type the reference held it (`fields`: the server's
    /// values for the id). Call it before the temporary id is forgotten, in the same transaction.
    func moveReferences(toCollection collection: String, from oldID: String, to newID: String, fields: JSONObject)
        throws
    {
        guard
            let parent = try fetch(
                collection: TemporaryIDs.collection, id: MovedIDs.key(collection: collection, id: oldID))
        else { return }
        for referrer in ReferenceFacts.facts(parent.object["referrers"]) {
            var childID = referrer.id
            if try fetch(collection: referrer.collection, id: childID) == nil,
                let current = try currentID(collection: referrer.collection, id: childID)
            {
                childID = current.id
            }
            if var record = try fetch(collection: referrer.collection, id: childID),
                record.syncState == .created || record.syncState == .updated,
                MovedIDs.idText(record.object[referrer.key]) == oldID
            {
                record.object[referrer.key] = ReferenceFacts.value(
                    newID, like: record.object[referrer.key], fields: fields)
                try writeRecord(.local(record, replacing: true))
            }
            for var entry in try outboxEntries(collection: referrer.collection, entityID: childID) {
                guard case .object(var payload)? = entry.payload, MovedIDs.idText(payload[referrer.key]) == oldID
                else { continue }
                payload[referrer.key] = ReferenceFacts.value(newID, like: payload[referrer.key], fields: fields)
                entry.payload = .object(payload)
                try replaceOutbox(entry)
            }
            try forgetReference(
                ReferenceFacts.Fact(key: referrer.key, collection: collection, id: oldID),
                of: referrer.collection, id: referrer.id)
        }
    }

    /// Removes `fact` from the references record `id` of `collection` made; the record of them
    /// goes with its last.
    private func forgetReference(_ fact: ReferenceFacts.Fact, of collection: String, id: String) throws {
        let key = MovedIDs.key(collection: collection, id: id)
        guard let stored = try fetch(collection: ReferenceFacts.collection, id: key) else { return }
        let facts = ReferenceFacts.facts(stored.object["refs"]).filter { $0 != fact }
        if facts.isEmpty {
            _ = try delete(collection: ReferenceFacts.collection, id: key)
        } else {
            try upsert(
                StoredRecord(
                    collection: ReferenceFacts.collection, id: key, object: ["refs": .array(facts.map(\.json))],
                    syncState: .synced))
        }
    }
}

/// What the references of an outbox entry decide (``StorageTransaction/referenceHold(_:)``).
enum ReferenceHold: Equatable {
    /// Every entity it names is known to the server (or it names none): it goes.
    case goes
    /// It names an entity whose create is queued, not delivered: it waits for that create.
    case waits
    /// It names this entity, whose create will never reach the server: it is refused unsent.
    case refused(ReferenceFacts.Fact)

    /// The refusal of `entityID`'s write, naming the entity `fact` names: a request error, never sent.
    static func refusal(of entityID: String, naming fact: ReferenceFacts.Fact) -> DepotError {
        DepotError(
            .invalidRequest,
            "\(entityID) names \(fact.collection) \(fact.id) in \(fact.key), an id Depot made for a create that"
                + " will never reach the server (discarded, or deleted before it was sent): the server cannot know it")
    }
}
