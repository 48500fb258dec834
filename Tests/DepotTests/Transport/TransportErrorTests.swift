import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct TransportErrorTests {
    @Test(
        "non-2xx answers map to typed codes and keep status, headers and body", arguments: Transport.available,
        [
            (404, DepotError.Code.notFound), (409, .conflict), (412, .conflict), (400, .status), (500, .status),
            (503, .status),
        ])
    func statusCodes(transport: Transport, expected: (status: Int, code: DepotError.Code)) async throws {
        try await withStubServer { server in
            let (status, code) = expected
            server.route(
                .get, "/messages/:id", response: .json(["reason": "nope"], status: status, headers: ["X-Trace": "t1"]))
            let messages = MessageRepository(store: transport.session(url: server.url))
            let error = await #expect(throws: DepotError.self) { try await messages.read("1").value }
            #expect(error?.code == code)
            #expect(error?.status == status)
            #expect(error?.responseHeaders["x-trace"] == "t1")
            #expect(error?.responseBody.flatMap { try? JSON(parsing: $0) } == ["reason": "nope"])
            #expect(error?.description.contains("nope") == false, "the description must not carry the body")
        }
    }

    @Test("malformed JSON gives a .decoding error, never a crash", arguments: Transport.available)
    func malformed(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages")
            server.inject(.malformedJSON)
            let messages = MessageRepository(store: transport.session(url: server.url))
            let error = await #expect(throws: DepotError.self) { try await messages.read("1").value }
            #expect(error?.code == .decoding)
            #expect(error?.status == 200)
            #expect(error?.responseBody != nil)
        }
    }

    @Test("wrongly typed and missing fields name the key path and the expected type", arguments: Transport.available)
    func wrongTypes(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "/messages/1", response: .json(["id": "1", "text": 42]))
            server.route(.get, "/messages/2", response: .json(["id": "2"]))
            server.route(
                .get, "/messages", response: .json([["id": "1", "text": "ok"], ["id": 2, "text": "bad id"]]))
            server.route(.get, "/notes/1", response: .json(["_id": "1", "body": true]))
            let session = transport.session(url: server.url)
            let messages = MessageRepository(store: session)
            let typed = await #expect(throws: DepotError.self) { try await messages.read("1").value }
            #expect(typed?.code == .decoding)
            #expect(typed?.message.contains("text") == true && typed?.message.contains("String") == true)
            let missing = await #expect(throws: DepotError.self) { try await messages.read("2").value }
            #expect(missing?.message.contains("text: missing key") == true)
            let array = await #expect(throws: DepotError.self) { try await messages.readAll().value }
            #expect(array?.message.contains("[1].id") == true)
            let note = await #expect(throws: DepotError.self) {
                try await NoteRepository(store: session).read("1").value
            }
            #expect(note?.message == "body: expected String, found bool")
        }
    }

    @Test("a refused connection is a .transport error at once, not after the timeout", arguments: Transport.available)
    func refused(transport: Transport) async throws {
        let server = try await StubServer.start()
        let url = server.url
        try await server.shutdown()
        let session = transport.session(url: url, configuration: SessionConfiguration(timeout: .seconds(600)))
        let start = ContinuousClock.now
        let error = await #expect(throws: DepotError.self) {
            try await MessageRepository(store: session).read("1").value
        }
        #expect(error?.code == .transport)
        #expect(error?.status == nil)
        // Wide margins: the whole suite runs under ThreadSanitizer on 2 cores in CI.
        #expect(ContinuousClock.now - start < .seconds(300), "a refused connection must not wait for the 600 s timeout")
    }

    /// Runs only in CI's one-at-a-time phase (`DEPOT_SERIAL` set): beside the whole suite in
    /// parallel the same 200 rounds took 551 s in a clean-clone CI run (1.8 s alone). Its step
    /// times (printed) showed where: an *online* read stalled 3–8 s, on both transports at the
    /// same moment, while a real-server test blocked Swift's cooperative pool (two threads here)
    /// waiting for Python to start. `RealServer` now starts its child with `posix_spawn` and waits
    /// on a dispatch thread; beside the whole suite, with another build running, the 200 rounds
    /// took 42 s, the slowest refused read 0.46 s. `DEPOT_WENT_AWAY_ROUNDS` sets the rounds (3,000
    /// alone: slowest refused read 0.28 s).
    @Test(
        "a server that went away, 200 times in a row: the request after it fails as a refusal, never waits out the timeout",
        .enabled(if: ProcessInfo.processInfo.environment["DEPOT_SERIAL"] != nil), arguments: Transport.available)
    func wentAwayRepeatedly(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "hi"]])
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(timeout: .seconds(600), retryPolicy: .none))
            let messages = MessageRepository(store: session)
            // Where the time goes, step by step (printed at the end: the slowest round of each)
            var slowest = [Duration](repeating: .zero, count: 4)
            var total = [Duration](repeating: .zero, count: 4)
            defer {
                print(
                    "went-away steps (online, read, offline, refused read) on \(transport): total \(total), slowest \(slowest)"
                )
            }
            func timed<T>(_ step: Int, _ body: () async throws -> T) async rethrows -> T {
                let start = ContinuousClock.now
                defer {
                    let took = ContinuousClock.now - start
                    total[step] += took
                    slowest[step] = max(slowest[step], took)
                }
                return try await body()
            }
            let rounds = ProcessInfo.processInfo.environment["DEPOT_WENT_AWAY_ROUNDS"].flatMap(Int.init) ?? 200
            for round in 0..<rounds {
                // Given: a kept-alive connection to the server
                try await timed(0) { try await server.goOnline() }
                _ = try await timed(1) { try await messages.read("1").value }
                // When: the server goes away and the app asks again
                try await timed(2) { try await server.goOffline() }
                let error = await timed(3) {
                    await #expect(throws: DepotError.self, "round \(round)") {
                        try await messages.read("1").value
                    }
                }
                // Then: a refusal (a hang would be a .timeout after 600 s)
                #expect(error?.code == .transport, "round \(round)")
                if error?.code != .transport { return }
            }
        }
    }

    @Test(
        "a refused connect on a session that never had a connection open says nothing was sent; a dropped answer does not",
        arguments: Transport.available)
    func refusedIsKnownUnsent(transport: Transport) async throws {
        // Given a port nobody listens on, and a session that never connected
        let server = try await StubServer.start()
        let url = server.url
        try await server.shutdown()
        let session = transport.session(url: url, configuration: SessionConfiguration(retryPolicy: .none))
        let refused = await #expect(throws: DepotError.self) {
            try await session.send(NetworkRequest(method: .post, path: "messages", body: Data("{}".utf8)))
        }
        // Then the transport says so, as a fact on the error
        #expect(refused?.code == .transport)
        #expect(refused?.underlying is RequestNotSent)
        // And an answer lost after the request went out carries no such fact
        try await withStubServer { live in
            live.resource("messages")
            live.inject(.dieMidResponse)
            let dropped = await #expect(throws: DepotError.self) {
                try await transport.session(url: live.url, configuration: SessionConfiguration(retryPolicy: .none))
                    .send(NetworkRequest(method: .post, path: "messages", body: Data("{}".utf8)))
            }
            #expect(!(dropped?.underlying is RequestNotSent))
        }
    }

    @Test(
        "a dropped connection and a server dying mid-answer are typed errors", arguments: Transport.available,
        [StubFault.dropConnection, .dieMidResponse])
    func dropped(transport: Transport, fault: StubFault) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.inject(fault)
            let messages = MessageRepository(store: transport.session(url: server.url))
            let error = await #expect(throws: DepotError.self) { try await messages.read("1").value }
            let code = error?.code
            #expect(code == .transport || code == .decoding)
            // Nothing is lost: the next call works.
            let message = try await messages.read("1").value
            #expect(message.text == "a")
        }
    }

    @Test("a slow answer past the timeout is a .timeout error", arguments: Transport.available)
    func timeout(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            // An answer far past the timeout, however late a loaded machine fires the timer (the
            // client gives up at 300 ms; the test does not wait for the answer)
            server.inject(.delay(.seconds(30)))
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(timeout: .milliseconds(300)))
            let error = await #expect(throws: DepotError.self) {
                try await MessageRepository(store: session).read("1").value
            }
            #expect(error?.code == .timeout)
        }
    }

    /// FoundationNetworking keeps whole seconds of a timeout and, below half a second, timed a
    /// request out at once: a session set to 250 ms failed every quick read with `.timeout`.
    @Test(
        "a sub-second timeout waits for a quick answer and still times out a slow one",
        arguments: Transport.available)
    func subSecondTimeout(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(timeout: .milliseconds(250)))
            let messages = MessageRepository(store: session)
            for _ in 0..<5 {
                let message = try await messages.read("1").value
                #expect(message.text == "a")
            }
            server.inject(.delay(.seconds(30)))
            let error = await #expect(throws: DepotError.self) { try await messages.read("1").value }
            #expect(error?.code == .timeout)
        }
    }

    @Test("cancelling mid-request cancels the URL task and rejects with .cancelled", arguments: Transport.available)
    func cancelMidRequest(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            server.inject(.delay(.seconds(40)))
            let messages = MessageRepository(store: transport.session(url: server.url))
            let promise = messages.read("1")
            #expect(await eventuallyAsync { server.requests.count == 1 })
            let start = ContinuousClock.now
            promise.cancel()
            await #expect { try await promise.value } throws: { ($0 as? DepotError)?.code == .cancelled }
            #expect(ContinuousClock.now - start < .seconds(8), "cancelling must not wait for the 40 s answer")
            // The awaiting task's cancellation does the same.
            server.inject(.delay(.seconds(40)))
            let task = Task { try await messages.read("1").value }
            #expect(await eventuallyAsync { server.requests.count == 2 })
            task.cancel()
            await #expect { try await task.value } throws: { $0.isDepotCancellation }
        }
    }

    @Test("a header value with CR or LF is refused before anything is sent", arguments: Transport.available)
    func headerInjection(transport: Transport) async throws {
        try await withStubServer { server in
            let session = transport.session(url: server.url, headers: ["X-Evil": "a\r\nInjected: yes"])
            let error = await #expect(throws: DepotError.self) {
                try await MessageRepository(store: session).read("1").value
            }
            #expect(error?.code == .invalidRequest)
            #expect(server.requests.isEmpty)
        }
    }

    @Test("per-request headers never leak into the session", arguments: Transport.available)
    func perRequestHeaders(transport: Transport) async throws {
        try await withStubServer { server in
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = transport.session(url: server.url, headers: ["X-App": "depot"])
            _ = try await session.request(.get, "messages/1", headers: ["X-Once": "1"]).value
            _ = try await session.request(.get, "messages/1").value
            #expect(server.requests[0].header("x-once") == "1")
            #expect(server.requests[1].header("x-once") == nil)
            #expect(server.requests.allSatisfy { $0.header("x-app") == "depot" })
        }
    }
}

/// Polls `condition` until it holds or 30 seconds pass (generous: CI runs the suite under
/// ThreadSanitizer on 2 cores; a condition that holds returns at once).
func eventuallyAsync(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
