import Foundation
import Observation

/// The newest value of a live stream as an `@Observable` object, for SwiftUI views and other
/// main-actor code: ``value`` follows the stream (``CRUDNetworkingStorageRepository/observe(_:)``,
/// ``CRUDNetworkingStorageRepository/observe(id:)``, ``Forwarder/pendingCounts``, or any other)
/// until ``cancel()`` or until the object is released.
///
/// ```swift
/// struct NotesView: View {
///     @State var notes = cached.liveQuery(Criteria(["author": "ann"], orderBy: "id"))
///     var body: some View { List(notes.value) { Text($0.text) } }
/// }
/// ```
///
/// Observation needs macOS 14, iOS 17, tvOS 17, watchOS 10 or visionOS 1 (the rest of Depot runs
/// on macOS 13, iOS 16, tvOS 16 and watchOS 9).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class LiveQuery<Value: Sendable> {
    /// The newest value the stream gave; the initial value until the first arrives.
    public private(set) var value: Value
    /// How many values have arrived from the stream.
    public private(set) var updates = 0
    /// Whether it still follows its stream: false after ``cancel()`` or once the stream ends.
    public private(set) var isLive = true
    /// The task that reads the stream; it holds the object weakly, so releasing the object ends it.
    @ObservationIgnored private var task: Task<Void, Never>?

    /// Follows `stream`, starting from `initial` until its first value arrives.
    public init(initial: Value, _ stream: AsyncStream<Value>) {
        value = initial
        task = Task { [weak self] in
            for await next in stream {
                guard let self else { return }
                self.value = next
                self.updates += 1
            }
            self?.isLive = false
        }
    }

    /// Stops following the stream (which ends its observation); ``value`` keeps the last value.
    public func cancel() {
        task?.cancel()
        task = nil
        isLive = false
    }

    isolated deinit {
        task?.cancel()
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension CRUDNetworkingStorageRepository {
    /// ``observe(_:)`` as a ``LiveQuery``: empty until the first read arrives.
    @MainActor
    public func liveQuery(_ criteria: Criteria = Criteria()) -> LiveQuery<[Entity]> {
        LiveQuery(initial: [], observe(criteria))
    }

    /// ``observe(id:)`` as a ``LiveQuery``: nil until the first read arrives, and once the record
    /// is deleted.
    @MainActor
    public func liveQuery(id: Entity.ID) -> LiveQuery<Entity?> {
        LiveQuery(initial: nil, observe(id: id))
    }
}
