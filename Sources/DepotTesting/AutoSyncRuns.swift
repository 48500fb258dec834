import Depot
import Foundation

/// The runs an `AutoSync` finishes, read one at a time: what a test waits on between moves of a
/// `ManualForwarderClock`.
///
/// ```swift
/// var runs = AutoSyncRuns(sync)      // subscribe before start()
/// sync.start()
/// let first = await runs.next()      // its trigger, failure and next due time
/// ```
public struct AutoSyncRuns {
    /// One finished run.
    public struct Run: Sendable {
        /// Why it ran.
        public var trigger: AutoSync.Trigger
        /// Why it failed; nil when it succeeded.
        public var failure: DepotError?
        /// When the action runs next, unless a trigger comes first.
        public var next: Date
    }

    private var iterator: AsyncStream<AutoSync.Event>.Iterator

    /// Reads the runs `sync` finishes from now on.
    public init(_ sync: AutoSync) { iterator = sync.events.makeAsyncIterator() }

    /// The next finished run; nil once the AutoSync has stopped.
    public mutating func next() async -> Run? {
        while let event = await iterator.next() {
            if case .finished(_, let trigger, let failure, let next) = event {
                return Run(trigger: trigger, failure: failure, next: next)
            }
        }
        return nil
    }
}
