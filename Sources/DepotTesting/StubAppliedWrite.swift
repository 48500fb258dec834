/// One write a stub server applied to a resource's state (see ``StubServer/appliedWrites``).
public struct StubAppliedWrite: Sendable, Hashable {
    /// The request's method, e.g. `"PATCH"` (`"POST"` for each object of a batch).
    public var method: String
    /// The resource's name, without slashes (e.g. `"messages"`).
    public var resource: String
    /// The written object's id as text (for a POST, the created object's); nil when it is neither string nor integer.
    public var id: String?
    /// The request's `Idempotency-Key`, or nil when it had none.
    public var idempotencyKey: String?
    /// The position in apply order on its server: 1, 2, 3, …
    public var sequence: Int

    /// Makes a record, e.g. to compare with ``StubServer/appliedWrites``.
    public init(method: String, resource: String, id: String?, idempotencyKey: String? = nil, sequence: Int) {
        self.method = method
        self.resource = resource
        self.id = id
        self.idempotencyKey = idempotencyKey
        self.sequence = sequence
    }
}
