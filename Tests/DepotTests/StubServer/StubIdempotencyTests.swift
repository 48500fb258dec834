import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct StubIdempotencyTests {
    @Test("a repeated POST with the same Idempotency-Key creates one object and gets the same answer")
    func repeatedPost() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages")
            let session = NetworkingSession(url: server.url)
            let key = ["Idempotency-Key": "k1"]
            // When
            let first = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            let second = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            // Then
            #expect(first.status == 201)
            #expect(second.status == first.status)
            #expect(second.body == first.body)
            #expect(second.headers == first.headers)
            #expect(server.objects(in: "messages") == [["id": "1", "text": "hi"]])
            #expect(
                server.appliedWrites == [
                    StubAppliedWrite(method: "POST", resource: "messages", id: "1", idempotencyKey: "k1", sequence: 1)
                ])
            #expect(server.replayedWrites == 1)
            #expect(server.appliedCount(idempotencyKey: "k1") == 1)
            // A new key is a new write.
            let third = try await exchange(
                session, .post, "messages", headers: ["Idempotency-Key": "k2"], json: ["text": "hi"])
            #expect(third.status == 201 && third.json?["id"] == "2")
            #expect(server.appliedWrites.map(\.sequence) == [1, 2])
        }
    }

    @Test("a resource set to ignore Idempotency-Key applies a repeated POST twice and replays nothing")
    func ignoredKeys() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages")
            server.setIgnoresIdempotencyKeys(true, for: "messages")
            let session = NetworkingSession(url: server.url)
            let key = ["Idempotency-Key": "k1"]
            // When
            let first = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            let second = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            // Then
            #expect(first.status == 201 && second.status == 201)
            #expect(server.objects(in: "messages") == [["id": "1", "text": "hi"], ["id": "2", "text": "hi"]])
            #expect(server.appliedCount(idempotencyKey: "k1") == 2)
            #expect(server.replayedWrites == 0)
            // Honoured again: the key's answer was never remembered, so the next POST applies too.
            server.setIgnoresIdempotencyKeys(false, for: "messages")
            let third = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            let fourth = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            #expect(third.json?["id"] == "3" && fourth.body == third.body)
            #expect(server.appliedCount(idempotencyKey: "k1") == 3)
        }
    }

    @Test("a repeated PATCH is applied once: its replay neither undoes a later write nor bumps the ETag")
    func repeatedPatch() async throws {
        try await withStubServer { server in
            // Given: a PATCH under a key, then someone else's PUT
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let headers = mergePatchJSON.merging(["Idempotency-Key": "p1"]) { $1 }
            let first = try await exchange(session, .patch, "messages/1", headers: headers, json: ["text": "mine"])
            _ = try await exchange(session, .put, "messages/1", json: ["text": "theirs"])
            let current = try #require(server.etag(of: "1", in: "messages"))
            // When
            let again = try await exchange(session, .patch, "messages/1", headers: headers, json: ["text": "mine"])
            // Then
            #expect(first.status == 200 && first.json == ["id": "1", "text": "mine"])
            #expect(again.status == 200 && again.body == first.body)
            #expect(again.header("etag") == first.header("etag"), "the remembered answer, stale ETag and all")
            #expect(server.objects(in: "messages") == [["id": "1", "text": "theirs"]])
            #expect(server.etag(of: "1", in: "messages") == current)
            #expect(server.appliedWrites.map(\.method) == ["PATCH", "PUT"])
            #expect(server.appliedCount(idempotencyKey: "p1") == 1)
            #expect(server.replayedWrites == 1)
        }
    }

    @Test(
        "a key repeated with another method or path answers 422 and applies nothing",
        arguments: [
            (NetworkRequest.Method.put, "messages/2"), (.patch, "messages/1"), (.delete, "messages/1"),
            (.post, "messages"),
        ])
    func keyForAnotherRequest(method: NetworkRequest.Method, path: String) async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages", objects: [["id": "1", "text": "a"], ["id": "2", "text": "b"]])
            let session = NetworkingSession(url: server.url)
            let key = ["Idempotency-Key": "k1"]
            _ = try await exchange(session, .put, "messages/1", headers: key, json: ["text": "first"])
            let before = server.objects(in: "messages")
            // When
            let headers = method == .patch ? mergePatchJSON.merging(key) { $1 } : key
            let json: JSON? = method == .delete ? nil : ["text": "second"]
            let response = try await exchange(session, method, path, headers: headers, json: json)
            // Then
            #expect(response.status == 422)
            #expect(response.json == ["error": "Idempotency-Key k1 was used for another request"])
            #expect(server.objects(in: "messages") == before)
            #expect(server.appliedWrites.count == 1)
            #expect(server.replayedWrites == 0)
        }
    }

    @Test("a 412 under a key is not remembered: a retry with a fresh If-Match and the same key is applied")
    func failedAnswerNotRemembered() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages", objects: [["id": "1", "text": "a"]])
            let session = NetworkingSession(url: server.url)
            let stale = try #require(server.etag(of: "1", in: "messages"))
            _ = try await exchange(session, .put, "messages/1", json: ["text": "theirs"])
            let fresh = try #require(server.etag(of: "1", in: "messages"))
            // When
            let rejected = try await exchange(
                session, .put, "messages/1", headers: ["If-Match": stale, "Idempotency-Key": "k1"],
                json: ["text": "mine"])
            let retried = try await exchange(
                session, .put, "messages/1", headers: ["If-Match": fresh, "Idempotency-Key": "k1"],
                json: ["text": "mine"])
            // Then
            #expect(rejected.status == 412)
            #expect(retried.status == 200 && retried.json == ["id": "1", "text": "mine"])
            #expect(server.objects(in: "messages") == [["id": "1", "text": "mine"]])
            #expect(server.appliedCount(idempotencyKey: "k1") == 1)
            #expect(server.replayedWrites == 0)
        }
    }

    @Test("an injected fault answer is not remembered, and custom routes ignore the key")
    func faultsAndRoutes() async throws {
        try await withStubServer { server in
            server.resource("messages")
            server.route(.post, "/ping") { request, _ in .json(["body": request.json ?? .null]) }
            let session = NetworkingSession(url: server.url)
            let key = ["Idempotency-Key": "k1"]
            server.inject(.status(503))
            let failed = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            let retried = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            #expect(failed.status == 503)
            #expect(retried.status == 201)
            #expect(server.objects(in: "messages").count == 1)
            let ping = try await exchange(session, .post, "ping", headers: key, json: ["n": 1])
            let pingAgain = try await exchange(session, .post, "ping", headers: key, json: ["n": 2])
            #expect(ping.json == ["body": ["n": 1]] && pingAgain.json == ["body": ["n": 2]])
            #expect(server.appliedWrites.count == 1 && server.replayedWrites == 0)
        }
    }

    @Test("applyThenDropConnection applies the write the client never hears of; a resend gets the remembered answer")
    func applyThenDrop() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages")
            server.inject(.applyThenDropConnection)
            let key = ["Idempotency-Key": "k1"]
            // When: a fresh session, so the request goes out on a new connection that no client
            // resends on by itself
            let error = await #expect(throws: DepotError.self) {
                try await exchange(
                    NetworkingSession(url: server.url), .post, "messages", headers: key, json: ["text": "hi"])
            }
            // Then
            #expect(error?.code == .transport)
            #expect(server.requests.count == 1)
            let applied = StubAppliedWrite(
                method: "POST", resource: "messages", id: "1", idempotencyKey: "k1", sequence: 1)
            #expect(server.appliedWrites == [applied])
            #expect(server.objects(in: "messages") == [["id": "1", "text": "hi"]])
            // When: the client resends under the same key
            let resent = try await exchange(
                NetworkingSession(url: server.url), .post, "messages", headers: key, json: ["text": "hi"])
            // Then
            #expect(resent.status == 201 && resent.json == ["id": "1", "text": "hi"])
            #expect(server.appliedWrites == [applied])
            #expect(server.replayedWrites == 1)
            #expect(server.objects(in: "messages").count == 1)
        }
    }

    @Test("the batch route records one applied write per object, in the order sent, and replays as one")
    func batch() async throws {
        try await withStubServer { server in
            // Given
            server.resource("messages", objects: [["id": "1", "text": "one"]])
            server.setBatchReply(.shuffled, for: "messages")
            let session = NetworkingSession(url: server.url)
            let batch: JSON = [["id": "1", "text": "replaced"], ["text": "created"], ["id": "c9", "text": "given"]]
            let key = ["Idempotency-Key": "b1"]
            // When
            let first = try await exchange(session, .post, "messages/collection", headers: key, json: batch)
            let again = try await exchange(session, .post, "messages/collection", headers: key, json: batch)
            // Then
            #expect(first.status == 200 && again.body == first.body)
            let expected = zip(["1", "2", "c9"], 1...).map { id, sequence in
                StubAppliedWrite(
                    method: "POST", resource: "messages", id: id, idempotencyKey: "b1", sequence: sequence)
            }
            #expect(server.appliedWrites == expected)
            #expect(server.appliedCount(idempotencyKey: "b1") == 3)
            #expect(server.replayedWrites == 1)
            #expect(server.objects(in: "messages").count == 3)
        }
    }

    @Test("clearAppliedWrites forgets the record and the replay count, not the remembered answers")
    func clearing() async throws {
        try await withStubServer { server in
            server.resource("messages")
            let session = NetworkingSession(url: server.url)
            let key = ["Idempotency-Key": "k1"]
            _ = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            _ = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            server.clearAppliedWrites()
            #expect(server.appliedWrites.isEmpty && server.replayedWrites == 0)
            _ = try await exchange(session, .post, "messages", headers: key, json: ["text": "hi"])
            _ = try await exchange(session, .delete, "messages/1")
            #expect(server.replayedWrites == 1)
            let delete = StubAppliedWrite(method: "DELETE", resource: "messages", id: "1", sequence: 2)
            #expect(server.appliedWrites == [delete], "sequence numbers keep counting")
        }
    }
}
