import Foundation

/// A ``StoredRecord`` whose JSON is already written as text: made from an entity in one pass
/// (its `Codable` conformance or its dictionary, straight to JSON text), stored by
/// ``RecordStorage/upsert(encoded:)`` without building a ``JSONObject`` or serializing it again.
///
/// ```swift
/// let records = try posts.map {
///     try EncodedRecord(collection: "posts", entity: $0, syncState: .synced, snapshot: .sameAsObject)
/// }
/// try await storage.upsert(encoded: records)
/// ```
public struct EncodedRecord: Sendable, Hashable {
    /// The server's last answer for the entity, as a record holds it.
    public enum Snapshot: Sendable, Hashable {
        /// Never synced: no snapshot.
        case absent
        /// The server's answer is the object itself (the usual case for a synced record): stores
        /// skip writing it a second time.
        case sameAsObject
        /// The server's answer, as JSON text of an object.
        case encoded(String)
    }

    /// The collection it belongs to, e.g. `"messages"`.
    public var collection: String
    /// Its id, as text.
    public var id: String
    /// The entity as the JSON text of an object (compact, keys sorted when it comes from an entity).
    public private(set) var object: String
    /// Where it stands with the server.
    public var syncState: SyncState
    /// The server's last answer for it.
    public private(set) var snapshot: Snapshot
    /// The `ETag` the server sent with the snapshot; nil if none.
    public var etag: String?

    /// Makes a record from JSON text already written, checking that the object and the snapshot
    /// are JSON objects.
    ///
    /// - Throws: `DepotError` `.decoding` when either text is not JSON, `.encoding` when it is
    ///   JSON but not an object.
    public init(
        collection: String, id: String, object: String, syncState: SyncState, snapshot: Snapshot = .absent,
        etag: String? = nil
    ) throws {
        _ = try Self.parseObject(object)
        if case .encoded(let text) = snapshot { _ = try Self.parseObject(text) }
        self.init(
            unchecked: collection, id: id, object: object, syncState: syncState, snapshot: snapshot, etag: etag)
    }

    /// Encodes `entity` straight to JSON text: through `DictionaryRepresentable` when it
    /// conforms, else through `Encodable` (keys sorted), the same JSON ``JSONMapping/object(_:coding:)``
    /// makes, in one pass.
    ///
    /// - Parameters:
    ///   - collection: the collection.
    ///   - entity: the entity; its id becomes the record's.
    ///   - syncState: where it stands with the server.
    ///   - snapshot: the server's last answer: ``Snapshot/sameAsObject`` when the entity is what
    ///     the server returned.
    ///   - etag: the `ETag` that came with the snapshot.
    /// - Throws: `DepotError` `.encoding` when the entity cannot be encoded or is not an object.
    public init<Entity: Identifiable>(
        collection: String, entity: Entity, syncState: SyncState, snapshot: Snapshot = .absent, etag: String? = nil
    ) throws where Entity.ID: PathComponentConvertible {
        if case .encoded(let text) = snapshot { _ = try Self.parseObject(text) }
        self.init(
            unchecked: collection, id: entity.id.pathComponent, object: try Self.encode(entity), syncState: syncState,
            snapshot: snapshot, etag: etag)
    }

    /// Writes `record`'s JSON as text; a snapshot equal to the object becomes
    /// ``Snapshot/sameAsObject``.
    ///
    /// - Throws: `DepotError` `.encoding` for a JSON value that cannot be written (a non-finite
    ///   double).
    public init(_ record: StoredRecord) throws {
        let object = try Self.text(record.object)
        let snapshot: Snapshot
        if let other = record.snapshot {
            snapshot = other == record.object ? .sameAsObject : .encoded(try Self.text(other))
        } else {
            snapshot = .absent
        }
        self.init(
            unchecked: record.collection, id: record.id, object: object, syncState: record.syncState,
            snapshot: snapshot, etag: record.etag)
    }

    /// Makes a record from text known to hold JSON objects.
    init(
        unchecked collection: String, id: String, object: String, syncState: SyncState, snapshot: Snapshot,
        etag: String?
    ) {
        self.collection = collection
        self.id = id
        self.object = object
        self.syncState = syncState
        self.snapshot = snapshot
        self.etag = etag
    }

    /// The record with its JSON parsed: what a store without its own encoded path stores.
    ///
    /// - Throws: `DepotError` `.decoding` when the text is not JSON (cannot happen for a record
    ///   made by these initializers).
    public func decoded() throws -> StoredRecord {
        let parsed = try Self.parseObject(object)
        let snapshotObject: JSONObject? =
            switch snapshot {
            case .absent: nil
            case .sameAsObject: parsed
            case .encoded(let text): try Self.parseObject(text)
            }
        return StoredRecord(
            collection: collection, id: id, object: parsed, syncState: syncState, snapshot: snapshotObject, etag: etag)
    }

    /// The JSON text of `object`: compact, keys sorted.
    static func text(_ object: JSONObject) throws -> String {
        String(decoding: try JSONWriter.write(.object(object)), as: UTF8.self)
    }

    /// `entity` as JSON text, in one pass.
    static func encode<Entity>(_ entity: Entity, coding: EntityCoding = .default) throws -> String {
        if let object = entity as? JSONObject { return try text(object) }
        if entity is any DictionaryRepresentable { return try text(JSONMapping.object(entity, coding: coding)) }
        guard let encodable = entity as? any Encodable else {
            preconditionFailure("\(Entity.self) must be Encodable or DictionaryRepresentable to be written as JSON")
        }
        let data: Data
        do {
            data = try coding.encoder().encode(encodable)
        } catch {
            throw DepotError(.encoding, "cannot write \(Entity.self): \(error)", underlying: error)
        }
        // JSONEncoder writes no leading space: an object starts with `{`.
        guard data.first == UInt8(ascii: "{") else {
            throw DepotError(.encoding, "\(Entity.self) does not encode to a JSON object")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func parseObject(_ text: String) throws -> JSONObject {
        let json = try JSON(parsing: Data(text.utf8))
        guard let object = json.objectValue else {
            throw DepotError(.encoding, "expected the JSON text of an object, found \(json.kindName)")
        }
        return object
    }
}
