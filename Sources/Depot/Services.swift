import ServiceLifecycle

// Depot's long-lived parts as swift-service-lifecycle services, for a `ServiceGroup` inside a
// Hummingbird or Vapor server: each runs until graceful shutdown (or cancellation), then finishes
// what is under way and returns.

extension Forwarder: Service {
    /// Forwards in the background until graceful shutdown or cancellation, then stops: the request
    /// in flight is answered and its answer stored before `run()` returns; entries not sent stay
    /// in the outbox for the next start.
    ///
    /// It is ``start()`` then ``stop()``: the same lifecycle, so it mixes with direct calls in
    /// any order and always returns (a `start()` made while it stops runs the forwarder again
    /// after it returns).
    public func run() async throws {
        start()
        try? await gracefulShutdown()
        await stop()
    }
}

extension AutoSync: Service {
    /// Runs the actions on their schedule until graceful shutdown or cancellation, then stops:
    /// the runs under way are asked to stop after their request in flight (see ``stop()``), and
    /// end before `run()` returns, within about one request timeout whatever their backlog.
    ///
    /// It is ``start()`` then ``stop()``: the same lifecycle, so it mixes with direct calls in
    /// any order and always returns.
    public func run() async throws {
        start()
        try? await gracefulShutdown()
        await stop()
    }
}

extension ActionExecutor: Service {
    /// Waits for graceful shutdown or cancellation, then shuts down: refuses new actions, asks
    /// every running and pending action to stop after its request in flight
    /// (``ActionContext/isStopping``; a ``SynchronizeAction`` stores the answer in flight and
    /// leaves the rest of its backlog for the next start), and returns once they have ended
    /// (pending ones are cancelled when the task was cancelled rather than shut down gracefully).
    public func run() async throws {
        do {
            try await gracefulShutdown()
            await shutdown(stopRunning: true)
        } catch {
            await shutdown(cancelPending: true)
        }
    }
}
