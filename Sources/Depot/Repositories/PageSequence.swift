import Foundation

/// The pages of a list, read one at a time as they are asked for: the next page is requested only
/// when the loop asks for it, so memory holds one page. Breaking out of the loop, or cancelling
/// its task, stops the reading.
///
/// ```swift
/// for try await page in messages.pages(pagination: .nextLink("next")) {
///     for message in page { print(message.text) }
/// }
/// ```
public struct PageSequence<Entity: Sendable>: AsyncSequence, Sendable {
    /// A page: the entities of one answer, in order.
    public typealias Element = [Entity]

    let produce: @Sendable (_ deliver: @escaping @Sendable ([Entity]) async throws -> Void) async throws -> Void

    /// Starts reading at the first `next()`.
    public func makeAsyncIterator() -> Iterator { Iterator(Handle(Rendezvous(produce))) }

    /// Asks for one page at a time.
    public struct Iterator: AsyncIteratorProtocol {
        let handle: Handle

        init(_ handle: Handle) { self.handle = handle }

        /// The next page; nil after the last one.
        ///
        /// - Throws: the `DepotError` that ended the reading (a failed request, an unreadable
        ///   page, a next page already read), or `.cancelled`.
        public mutating func next() async throws -> [Entity]? { try await handle.rendezvous.next() }
    }

    /// The loop's hold on the reading: when the loop lets go (a `break`), the reading stops. (The
    /// reading task holds the rendezvous, not this.)
    final class Handle: Sendable {
        let rendezvous: Rendezvous<Entity>
        init(_ rendezvous: Rendezvous<Entity>) { self.rendezvous = rendezvous }
        deinit { rendezvous.cancel() }
    }
}

/// Hands pages from the reading task to the loop one at a time: the reader waits after each page
/// until the loop asks for the next.
final class Rendezvous<Entity: Sendable>: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var consumer: CheckedContinuation<[Entity]?, any Error>?
        var page: [Entity]?
        var producer: CheckedContinuation<Void, any Error>?
        var end: Result<Void, any Error>?
        var cancelled = false
    }

    private let state = LockedValue(State())
    private let produce: @Sendable (_ deliver: @escaping @Sendable ([Entity]) async throws -> Void) async throws -> Void

    init(
        _ produce:
            @escaping @Sendable (_ deliver: @escaping @Sendable ([Entity]) async throws -> Void) async throws -> Void
    ) {
        self.produce = produce
    }

    /// Stops the reading task, if it runs.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            return state.task
        }?.cancel()
    }

    func next() async throws -> [Entity]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (consumer: CheckedContinuation<[Entity]?, any Error>) in
                let (producer, start) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, Bool) in
                    if let page = state.page {
                        state.page = nil
                        consumer.resume(returning: page)
                        return (nil, false)
                    }
                    if let end = state.end {
                        switch end {
                        case .success: consumer.resume(returning: nil)
                        case .failure(let error): consumer.resume(throwing: error)
                        }
                        return (nil, false)
                    }
                    state.consumer = consumer
                    // The reader waits after each page: let it read the next one now.
                    let producer = state.producer
                    state.producer = nil
                    let start = state.task == nil
                    return (producer, start)
                }
                producer?.resume()
                if start { begin() }
            }
        } onCancel: {
            state.withLock { $0.task }?.cancel()
        }
    }

    private func begin() {
        let task = Task { [self] in
            do {
                try await produce { page in try await self.deliver(page) }
                finish(.success(()))
            } catch {
                finish(.failure(error is CancellationError ? DepotError.cancelled : error))
            }
        }
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Gives `page` to the loop and waits until it asks for the next.
    private func deliver(_ page: [Entity]) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (producer: CheckedContinuation<Void, any Error>) in
                state.withLock { state in
                    if Task.isCancelled {
                        producer.resume(throwing: DepotError.cancelled)
                    } else if let consumer = state.consumer {
                        state.consumer = nil
                        consumer.resume(returning: page)
                        state.producer = producer
                    } else {
                        state.page = page
                        state.producer = producer
                    }
                }
            }
        } onCancel: {
            let producer = state.withLock { state in
                defer { state.producer = nil }
                return state.producer
            }
            producer?.resume(throwing: DepotError.cancelled)
        }
    }

    private func finish(_ end: Result<Void, any Error>) {
        let consumer = state.withLock { state in
            state.end = end
            defer { state.consumer = nil }
            return state.consumer
        }
        switch end {
        case .success: consumer?.resume(returning: nil)
        case .failure(let error): consumer?.resume(throwing: error)
        }
    }
}

extension CRUDNetworkingRepository {
    /// The pages of `GET /path?…`, read as `pagination` says, one page in memory at a time. The
    /// sequence ends at the real end of the list; a failure ends it with the error.
    ///
    /// - Parameters:
    ///   - query: filters for every page's request.
    ///   - pagination: how the server pages (``Pagination/automatic`` recognises the common styles).
    public func pages(query: [String: String] = [:], pagination: Pagination = .automatic) -> PageSequence<Entity> {
        let synchronizer = Synchronizer<Entity>(
            store: store,
            // A page reader touches no storage: the store is only there to satisfy the type.
            storage: InMemoryStorage(),
            collection: "",
            configuration: SynchronizationConfiguration(pagination: pagination, query: query),
            batchRoute: route(for: .synchronize),
            deleteRoute: route(for: .delete),
            listRoute: route(for: .readAll),
            headers: configuration.requestHeaders,
            envelope: configuration.collectionEnvelope,
            createRoute: route(for: .create),
            channel: nil,
            shape: BodyShape(configuration, entity: Entity.self)
        )
        return PageSequence { deliver in
            var errors: [DepotError] = []
            let complete = try await synchronizer.walk(&errors) { request, elements, _, _, _ in
                var page: [Entity] = []
                page.reserveCapacity(elements.count)
                for (index, element) in elements.enumerated() {
                    do {
                        page.append(
                            try JSONMapping.entity(Entity.self, from: element, coding: synchronizer.shape.coding))
                    } catch {
                        var failure = error as? DepotError ?? DepotError(.decoding, "\(error)", underlying: error)
                        failure.message = "list element \(index): " + failure.message
                        failure.request = failure.request ?? synchronizer.summary(of: request)
                        throw failure
                    }
                }
                try await deliver(page)
            }
            if !complete, let error = errors.first { throw error }
        }
    }

    /// Every entity of `GET /path?…`, across all pages, read as `pages` says:
    /// `readAll(query: ["author": "ann"], pages: .all)`. For lists too long to hold, loop over
    /// ``pages(query:pagination:)`` instead.
    ///
    /// - Throws: (in the promise) the `DepotError` of the first failure; no partial list.
    public func readAll(query: [String: String] = [:], pages pagination: Pagination) -> Promise<[Entity]> {
        let sequence = pages(query: query, pagination: pagination)
        return Promise {
            var all: [Entity] = []
            for try await page in sequence { all += page }
            return all
        }
    }
}
