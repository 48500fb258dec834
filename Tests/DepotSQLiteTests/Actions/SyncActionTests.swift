import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct SyncActionTests {
    @Test("SynchronizeAction counts pushed, pulled and deleted entities, and the requests the server saw")
    func synchronizeAction() async throws {
        let objects: [JSONObject] = (1...6).map { ["id": .string("\($0)"), "text": .string("server \($0)")] }
        try await withOutboxFixture(objects: objects) { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "new-1", text: "local")).value
            _ = try await messages.create(Message(id: "new-2", text: "local")).value
            fixture.server.clearRequests()
            let executor = ActionExecutor(maxConcurrent: 2)
            // When
            let proxy = executor.execute(SynchronizeAction(messages))
            let report = try await proxy.result.value
            // Then
            let statistics = proxy.statistics
            #expect(proxy.state == .finished)
            #expect(report.pushed == 2 && report.pulled == 8)
            #expect(statistics.pushed == report.pushed && statistics.pulled == report.pulled)
            #expect(statistics.deleted == 0)
            #expect(statistics.requests == fixture.server.requests.count)
            #expect(statistics.bytesSent == fixture.server.requests.reduce(0) { $0 + $1.body.count })
            #expect(statistics.bytesReceived > 0)
            #expect(fixture.serverObject("new-1") != nil && fixture.serverObject("new-2") != nil)
            #expect(proxy.serializationKey == "synchronize:messages")
            let kinds = await collect(proxy.events).map(\.kind.name)
            #expect(kinds.first == "submitted" && kinds.last == "finished" && kinds.contains("progress"))
        }
    }

    @Test("a local delete synchronized counts as deleted")
    func synchronizeDeletes() async throws {
        try await withOutboxFixture(objects: [["id": "1", "text": "one"], ["id": "2", "text": "two"]]) { fixture in
            let messages = fixture.repository()
            _ = try await messages.readAll().value
            _ = try await fixture.repository(strategy: recordOnly).delete(id: "2").value
            fixture.server.clearRequests()
            let proxy = ActionExecutor().execute(SynchronizeAction(messages))
            let report = try await proxy.result.value
            #expect(report.deleted == 1 && proxy.statistics.deleted == 1)
            #expect(proxy.statistics.pulled == 1)
            #expect(proxy.statistics.requests == fixture.server.requests.count)
            #expect(fixture.serverObject("2") == nil)
        }
    }

    @Test("FlushAction counts delivered entries and the requests and bytes the flush sent")
    func flushAction() async throws {
        try await withOutboxFixture { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            for index in 1...5 { _ = try await messages.create(Message(id: "\(index)", text: "m\(index)")).value }
            _ = try await messages.update(Message(id: "1", text: "m1 again")).value
            fixture.server.clearRequests()
            let forwarder = fixture.forwarder(messages)
            // When
            let proxy = ActionExecutor().execute(FlushAction(forwarder))
            let report = try await proxy.result.value
            // Then
            #expect(report.delivered == 5)
            #expect(proxy.statistics.pushed == 5)
            #expect(report.requests == fixture.server.requests.count)
            #expect(proxy.statistics.requests == fixture.server.requests.count)
            #expect(proxy.statistics.bytesSent == fixture.server.requests.reduce(0) { $0 + $1.body.count })
            #expect(proxy.statistics.bytesReceived == report.bytesReceived && report.bytesReceived > 0)
            #expect(await forwarder.pendingCount == 0)
            #expect(fixture.server.objects(in: "messages").count == 5)
        }
    }

    @Test("a FlushAction cancelled while pending never flushes")
    func flushCancelled() async throws {
        try await withOutboxFixture { fixture in
            let messages = fixture.repository(strategy: recordOnly)
            _ = try await messages.create(Message(id: "1", text: "one")).value
            let executor = ActionExecutor()
            executor.suspend()
            let proxy = executor.execute(FlushAction(fixture.forwarder(messages)))
            proxy.cancel()
            executor.resume()
            await executor.shutdown()
            #expect(proxy.state == .cancelled)
            #expect(fixture.server.requests.isEmpty)
            #expect(try await fixture.outbox().count == 1)
        }
    }
}

/// Reads `stream` to its end.
func collect(_ stream: AsyncStream<ActionEvent>) async -> [ActionEvent] {
    var events: [ActionEvent] = []
    for await event in stream { events.append(event) }
    return events
}
