import Foundation

/// A unit of work an ``ActionExecutor`` runs: cancellable, observable and measured.
///
/// ```swift
/// struct ImportAuthors: Action {
///     let source: URL
///     func execute(context: ActionContext) async throws -> Int {
///         let authors = try await context.session!.request(.get, source.path, as: [Author].self).value
///         context.record(.inserted, authors.count)
///         return authors.count
///     }
/// }
/// let proxy = ActionExecutor(maxConcurrent: 4).execute(ImportAuthors(source: url))
/// ```
///
/// Cancellation is cooperative: the task running ``execute(context:)`` is cancelled (check
/// `Task.isCancelled`, ``ActionContext/isCancelled`` or ``ActionContext/checkCancellation()``),
/// and ``cancel()`` is called once beside it for work that task cancellation cannot reach.
public protocol Action: Sendable {
    /// What the action produces.
    associatedtype Output: Sendable

    /// A short name for events, logs and metrics; the type's name unless the action says otherwise.
    var name: String { get }

    /// Actions with the same key run one at a time, in submission order; `nil` (the default)
    /// runs beside anything.
    var serializationKey: String? { get }

    /// Does the work. The context counts the requests sent through its session and takes the
    /// action's own counts (``ActionContext/record(_:_:)``) and progress.
    ///
    /// - Throws: anything; the proxy's result rejects with it unchanged (a cancelled action's with
    ///   `DepotError` `.cancelled`).
    func execute(context: ActionContext) async throws -> Output

    /// Called once when the action is cancelled while it runs, beside cancelling its task. Must
    /// not block. The default does nothing.
    func cancel()
}

extension Action {
    /// The type's name.
    public var name: String { String(describing: Self.self) }

    /// No serialization: the action runs beside any other.
    public var serializationKey: String? { nil }

    /// Does nothing: task cancellation is enough for most actions.
    public func cancel() {}
}
