import Depot
import DepotTesting
import Foundation
import Testing

/// Posts `bodies` to `echo`, then reads `blob`, through the context's session.
struct Upload: Action {
    let bodies: [JSON]

    func execute(context: ActionContext) async throws -> Int {
        let session = try context.requireSession()
        for body in bodies {
            _ = try await session.request(.post, "echo", body: body, as: Okay.self).value
            context.record(.inserted)
        }
        _ = try await session.request(.get, "blob", as: Okay.self).value
        return bodies.count
    }
}

@Suite struct ActionStatisticsTests {
    @Test("requests and bytes through the context's session equal what the stub server saw")
    func countsTraffic() async throws {
        try await withStubServer { server in
            let blob = Data(repeating: 0x61, count: 1234)
            server.route(.post, "echo", response: .text("ok"))
            server.route(.get, "blob", response: StubResponse(body: blob))
            let executor = ActionExecutor(session: NetworkingSession(url: server.url))
            let bodies: [JSON] = (1...5).map {
                ["n": .integer(Int64($0)), "text": .string(String(repeating: "x", count: $0 * 10))]
            }
            // When
            let proxy = executor.execute(Upload(bodies: bodies))
            let uploaded = try await proxy.result.value
            #expect(uploaded == 5)
            // Then
            let statistics = proxy.statistics
            #expect(statistics.requests == server.requests.count)
            #expect(statistics.requests == 6)
            #expect(statistics.bytesSent == server.requests.reduce(0) { $0 + $1.body.count })
            #expect(statistics.bytesSent > 0)
            #expect(statistics.bytesReceived == 5 * 2 + blob.count)
            #expect(statistics.bytes == statistics.bytesSent + statistics.bytesReceived)
            #expect(statistics.inserted == 5)
        }
    }

    @Test("an error answer's body counts as received; the action fails with the typed error")
    func countsErrorAnswers() async throws {
        try await withStubServer { server in
            server.route(.post, "echo", response: .text("no such thing", status: 422))
            let executor = ActionExecutor(session: NetworkingSession(url: server.url), logger: quietLogger)
            let proxy = executor.execute(Upload(bodies: [["n": 1]]))
            await #expect { try await proxy.result.value } throws: { ($0 as? DepotError)?.status == 422 }
            #expect(proxy.state == .failed)
            #expect(proxy.statistics.requests == 1 && server.requests.count == 1)
            #expect(proxy.statistics.bytesReceived == "no such thing".utf8.count)
        }
    }

    @Test("an executor without a session gives a typed error")
    func noSession() async throws {
        let proxy = ActionExecutor(logger: quietLogger).execute(Upload(bodies: []))
        await #expect { try await proxy.result.value } throws: { ($0 as? DepotError)?.code == .invalidRequest }
    }
}
