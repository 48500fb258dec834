/// How a stub resource answers its batch endpoint, `POST /<name>/collection`: by default every
/// stored object in the order sent; the switches make it misbehave, for tests that a client
/// matches a batch reply by identity, never by position or length.
///
/// ```swift
/// server.resource("messages")
/// server.setBatchReply([.shuffled, .missingOne], for: "messages")
/// ```
public struct StubBatchReply: OptionSet, Sendable, Hashable {
    /// The switches as bits.
    public let rawValue: Int

    /// Makes a set of switches from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Every stored object, in the order sent (the default).
    public static let exact: StubBatchReply = []
    /// The objects in another order than sent (when there are two or more, never the same order).
    public static let shuffled = StubBatchReply(rawValue: 1 << 0)
    /// One object left out of the answer (the last one), though it is stored all the same.
    public static let missingOne = StubBatchReply(rawValue: 1 << 1)
}
