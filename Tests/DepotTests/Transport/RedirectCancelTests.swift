import DepotTesting
import Foundation
import Testing

@testable import Depot

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct RedirectCancelTests {
    @Test("a task cancelled while its redirect callback is pending ends cancelled, without trapping the process")
    func cancelledDuringRedirectCallback() async throws {
        try await withStubServer { server in
            // Given: a 302, and a session whose redirect callback is held until the task's
            // cancellation has completed it (FoundationNetworking: state `.taskCompleted`)
            server.route(nil, "old", response: .empty(status: 302, headers: ["Location": "/new"]))
            server.route(nil, "new", response: .json(["reached": true]))
            let delegate = SessionDelegate()
            let wrapper = CancelsBeforeRedirect(delegate)
            let queue = OperationQueue()
            // Two at once: the cancellation's completion runs while the redirect callback waits.
            queue.maxConcurrentOperationCount = 2
            let session = URLSession(configuration: .ephemeral, delegate: wrapper, delegateQueue: queue)
            let url = try #require(URL(string: "old", relativeTo: server.url)?.absoluteURL)

            // When: the redirect is answered after the cancellation
            let result = await withCheckedContinuation { continuation in
                let task = session.dataTask(with: URLRequest(url: url))
                delegate.register(
                    task.taskIdentifier,
                    SessionDelegate.Exchange(
                        completion: { continuation.resume(returning: $0) },
                        request: DepotError.Request(method: "GET", url: url.absoluteString),
                        limit: 1 << 20, timeout: .seconds(60), checksContentLength: true))
                task.resume()
            }

            // Then: the exchange ended cancelled; the redirect callback came and was answered by
            // Depot's delegate, and the session's work queue ran past where an answer given to
            // FoundationNetworking would have landed (the process is still alive); the redirect
            // was not followed
            for await _ in wrapper.invalidated {}
            #expect(wrapper.answered)
            #expect((result.failure as? DepotError)?.code == .cancelled)
            #expect(server.requests.map(\.path) == ["/old"])
        }
    }
}

/// Forwards to a ``SessionDelegate``, but cancels a task when its redirect callback comes and
/// passes that callback on only once the cancellation's `didCompleteWithError` has run; then
/// invalidates the session, whose work queue runs that invalidation after the task's work queue
/// ran whatever the answer to the callback put there.
private final class CancelsBeforeRedirect: NSObject, URLSessionDataDelegate, Sendable {
    private let delegate: SessionDelegate
    private let completed = DispatchSemaphore(value: 0)
    private let passedOn = LockedValue(false)
    /// Ends when the session has become invalid.
    let invalidated: AsyncStream<Void>
    private let invalidation: AsyncStream<Void>.Continuation

    init(_ delegate: SessionDelegate) {
        self.delegate = delegate
        (invalidated, invalidation) = AsyncStream.makeStream()
    }

    /// Whether the redirect callback reached the wrapped delegate.
    var answered: Bool { passedOn.withLock { $0 } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        delegate.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        delegate.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        task.cancel()
        // A bound only so a broken run ends; the answer counts only after the completion.
        if completed.wait(timeout: .now() + 60) == .success {
            passedOn.withLock { $0 = true }
            delegate.urlSession(
                session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                completionHandler: completionHandler)
        }
        session.finishTasksAndInvalidate()
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        invalidation.finish()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        delegate.urlSession(session, task: task, didCompleteWithError: error)
        completed.signal()
    }
}
