import Foundation

/// Where a write of a record came from, with what that road knows: what the one record-write
/// function (``StorageTransaction/writeRecord(_:)``) is told, and all it is told. What it keeps of
/// the record's derived state (write `ETag`, cache entries, quarantine row, delivery mark, id move)
/// depends on it.
enum RecordSource: Sendable {
    /// The app's own write (a create, an update, a tombstone): `record` as it is to be stored.
    /// `replacing` says whether the store held a record under its id (a tombstone included): only
    /// then can the record have an HTTP-cache entry to drop (entries go with their records).
    case local(StoredRecord, replacing: Bool)
    /// A remote-first write the server refused, taken back: `record` as it is to be stored again
    /// (the record as it was before the write, or what the store holds under the writes still
    /// waiting). Like ``restore(collection:id:)``, a write of the collection no answer will
    /// follow: the record's cache entry goes and the collection's list token is renewed (a cached
    /// list may name the record as it was, though the refusal may say the server no longer holds
    /// it so).
    case takeBack(StoredRecord)
    /// The app's own delete of a record the server never saw: the record goes, with its cache
    /// entry and the id move its id may have kept from an older entity.
    case localRemoval(collection: String, id: String)
    /// The server's answer to a write of one entity (``WriteAnswer``).
    case writeAnswer(WriteAnswer)
    /// The record's own `GET` answered `200`: its HTTP-cache entry becomes what `caching` says
    /// (`.store` keeps the new entry, `.forget` or nil drops it).
    case detailRead(ServerCopy, AnswerCaching?)
    /// A `GET` answered `304` (the record's own, or a page of a full pull): no record is written;
    /// `refreshed`, the entry the answer renewed, replaces the entry under `key` while that is
    /// still the entry it renewed (same validators): one dropped or replaced since stays so.
    case notModified(key: String, refreshed: HTTPCacheEntry)
    /// A list read's answer (`readAll`).
    case listAnswer(ServerCopy)
    /// A pull page.
    case pullPage(ServerCopy)
    /// A row kept in the quarantine that the app can read now.
    case quarantine(ServerCopy)
    /// A pull page's deletion flag for record `id`, whose sync state the page's bulk look-up
    /// found (`state`); `reader` is the pull's read, when a delivery happened since it began.
    case pulledDeletion(collection: String, id: String, state: SyncState, reader: DeliveryLog.Reader?)
    /// A full pull did not see record `id`: it goes if it is still synced and no write's answer
    /// was stored for it since the pull began (`reader`).
    case prune(collection: String, id: String, reader: DeliveryLog.Reader)
    /// The server answered that it no longer has entity `id` (a read's `404`): the record goes.
    case gone(collection: String, id: String)
    /// The app gave up the last pending write of record `id` (a refused write discarded,
    /// ``Forwarder/discard(_:)``): the record goes back to the server's last version, its snapshot,
    /// synced, or goes when the server never had one. Nothing is written for a synced record.
    case restore(collection: String, id: String)
    /// The server's answer to a write of record `id` (a conflict its version won) is a version
    /// the app cannot read: `raw`, kept in the quarantine with `error` as a pull keeps such a row,
    /// with its `etag`.
    case unreadableAnswer(collection: String, id: String, raw: JSON, error: DepotError, etag: String?)
}

/// A server's copy of a record, as a read brought it (a detail `GET`, a list answer, a pull page,
/// a quarantine re-merge).
struct ServerCopy: Sendable {
    /// The copy, as a synced record under its canonical id.
    var record: EncodedRecord
    /// The read it came from: a write's answer stored since that read began is newer, and stays.
    var reader: DeliveryLog.Reader?
    /// The client's id the server echoes in the copy (under the identity key), when not its id.
    var clientID: String?
    /// What a caller that looked a whole page up at once (``StorageTransaction/presence(of:collection:)``)
    /// knows is not stored for this record, so the rule does not ask again row by row.
    var absent: StoredPresence.Absent = []
    /// The keys the server owns (``RepositoryConfiguration/serverOwnedKeys``): never part of a
    /// pending local change the copy goes under (``PendingChange``), so the copy's values show.
    var serverOwnedKeys: Set<String> = []
}

/// The server's answer to a write of one entity, as the road that sent the write has it.
struct WriteAnswer: Sendable {
    /// The server's entity as a synced record under the server's id (its snapshot the server's
    /// JSON, its `ETag`); nil when a delete went through or the server no longer has the entity.
    var answer: EncodedRecord?
    /// The entity's collection.
    var collection: String
    /// The id the write was sent under (the client's id the answer echoes).
    var sentID: String
    /// The object the write sent, when the caller knows it: a record whose object differs from it
    /// changed while the write was out, and keeps that change.
    var sent: JSONObject?
    /// For a nil answer (a delete went through): how the record the delete was made on is told
    /// from one written after it, which stays.
    var deleted: DeleteMark = .agreed

    /// How a delete's answer tells the record it was made on from one written after it (by an
    /// answer to a write of another spelling of the id, moved onto it; by a local-only write).
    enum DeleteMark: Sendable {
        /// Nothing was written after it: the record goes (the app and the server agree it is gone).
        case agreed
        /// The delete's own local change left a tombstone (`.deleted`): a record that is no longer
        /// one was written after it.
        case tombstone
        /// A direct delete, its request sent when the store's delivery sequence was the reader's
        /// (nil: unknown): a record that is not a tombstone and took a delivery since was written
        /// after it.
        case sentAt(DeliveryLog.Reader?)
    }
}

/// What the record-write function did.
enum RecordWrite: Sendable, Equatable {
    /// The record is stored.
    case written
    /// The copy was the stored version (a list's summary of it included): nothing was written,
    /// and the record keeps its `ETag`, snapshot and cache entry.
    case unchanged
    /// The store holds something newer, which stays: a pending local change (the record, not
    /// synced), or a write's answer delivered since the read's request left (the record, or nil
    /// when that answer removed it).
    case kept(StoredRecord?)
    /// The record is gone.
    case removed
    /// A pending local change the server's deletion (or a prune) must not erase: the record stays.
    case conflicted
}
