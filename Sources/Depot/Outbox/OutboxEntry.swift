import Foundation

/// What an outbox entry asks the server to do.
public enum OutboxOperation: String, Sendable, Hashable, Codable, CaseIterable {
    /// `POST` the payload (the whole object).
    case create
    /// `PUT` the payload (the whole object).
    case update
    /// `PATCH` the payload (an RFC 7396 merge patch).
    case patch
    /// `DELETE` the entity; no payload.
    case delete
}

/// One local write the server has not taken yet: the unit the outbox stores and forwards.
///
/// Entries are made in the same storage transaction as the record they describe, carry an
/// idempotency key from the start (so a resend after a crash carries the same key), and are
/// removed only once the server's answer has been stored.
public struct OutboxEntry: Sendable, Hashable {
    /// The order entries were made in; forwarding follows it.
    public var sequence: Int64
    /// The collection of the entity, e.g. `"messages"`.
    public var collection: String
    /// The entity's id, as text.
    public var entityID: String
    /// What to ask of the server.
    public var operation: OutboxOperation
    /// The object (create, update), the merge patch (patch), or nil (delete).
    public var payload: JSON?
    /// Sent as `Idempotency-Key`; made when the entry is made, never changed by coalescing an
    /// entry that was already attempted.
    public var idempotencyKey: String
    /// How many times it was taken up for sending and may have reached the server (counted before
    /// each send; only a send that certainly never left the process, such as a failed host name
    /// lookup, is not counted: a refused connection may follow a send the server applied). An
    /// entry with attempts is never changed by coalescing.
    public var attempts: Int
    /// How many sends failed in a row; the retry pause grows with it.
    public var failures: Int
    /// When it may be sent next; nil for at once.
    public var nextAttempt: Date?
    /// What went wrong last time, for the app to show.
    public var lastError: String?
    /// Set when the server refused the entry for good (a 4xx other than 401, 408, 409, 412, 429):
    /// the entry is kept aside, with the server's answer, until the app retries or discards it.
    /// Later entries for the same entity wait behind it.
    public var rejection: OutboxRejection?
    /// The sender that holds the entry right now, if any (see ``OutboxLease``). Depot sets it with
    /// ``OutboxTransaction/claimOutbox(sequences:lease:now:)`` and clears it with
    /// ``OutboxTransaction/releaseOutbox(sequences:owner:)``; `replaceOutbox` stores it as given,
    /// so change an entry as read in the same transaction.
    public var lease: OutboxLease?
    /// The account the write was made under (the ``Networking/account`` the app declared when it
    /// was recorded): the entry is sent only while that account's credential is in force, and
    /// waits (``Forwarder/held()``) while another's is. Nil when none was declared: it goes
    /// under whatever credential is in force.
    public var account: String?

    /// Makes an entry.
    public init(
        sequence: Int64,
        collection: String,
        entityID: String,
        operation: OutboxOperation,
        payload: JSON?,
        idempotencyKey: String = UUID().uuidString,
        attempts: Int = 0,
        failures: Int = 0,
        nextAttempt: Date? = nil,
        lastError: String? = nil,
        rejection: OutboxRejection? = nil,
        lease: OutboxLease? = nil,
        account: String? = nil
    ) {
        self.sequence = sequence
        self.collection = collection
        self.entityID = entityID
        self.operation = operation
        self.payload = payload
        self.idempotencyKey = idempotencyKey
        self.attempts = attempts
        self.failures = failures
        self.nextAttempt = nextAttempt
        self.lastError = lastError
        self.rejection = rejection
        self.lease = lease
        self.account = account
    }

    /// Whether the server refused it for good (see ``rejection``).
    public var isRejected: Bool { rejection != nil }
}

/// Why the server refused an outbox entry: its status and body, as they came.
public struct OutboxRejection: Sendable, Hashable {
    /// The HTTP status, e.g. 422; nil when the answer could not be read at all.
    public var status: Int?
    /// The answer's body, as it came (often a JSON error document); empty for none.
    public var body: Data
    /// A one-line description for logs and the app's UI.
    public var message: String

    /// Makes a rejection.
    public init(status: Int?, body: Data = Data(), message: String) {
        self.status = status
        self.body = body
        self.message = message
    }

    /// The body read as JSON; nil when it is empty or not JSON.
    public var json: JSON? { body.isEmpty ? nil : try? JSON(parsing: body) }
}
