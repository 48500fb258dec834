import Depot
import DepotSQLite
import DepotTesting
import Foundation
import Testing

@Suite struct SynchronizePushTests {
    @Test("batch push with a shuffled reply merges each entity with its own server object")
    func shuffledReply() async throws {
        try await withSyncFixture { fixture in
            // Given five local creates and a server that answers the batch in another order
            let messages = (1...5).map { Message(id: String($0), text: "local \($0)") }
            _ = try await fixture.local.create(messages).value
            fixture.server.setBatchReply(.shuffled, for: "messages")
            let cached = CachedMessages(store: fixture.session, storage: fixture.storage)

            // When
            let report = try await cached.synchronize().value

            // Then one batch went, and each record holds ITS object
            #expect(fixture.requestLines == ["POST /messages/collection", "GET /messages?_page=1&_limit=500"])
            let sent = try #require(fixture.server.requests.first?.json?.arrayValue)
            #expect(sent.count == 5)
            #expect(report.pushed == 5 && report.failed == 0 && report.errors.isEmpty)
            for message in messages {
                let record = try #require(try await fixture.stored(message.id))
                #expect(record.syncState == .synced)
                #expect(record.object["text"] == .string(message.text))
                #expect(record.snapshot?["text"] == .string(message.text))
            }
        }
    }

    @Test("the raw reply object becomes the snapshot; the entity's object drops keys it does not model")
    func rawSnapshot() async throws {
        try await withSyncFixture { fixture in
            _ = try await fixture.local.create([Message(id: "1", text: "a"), Message(id: "2", text: "b")]).value
            fixture.server.route(.post, "/messages/collection") { request, _ in
                let sent = request.json?.arrayValue ?? []
                let answered = sent.reversed().map { element -> JSON in
                    var object = element.objectValue ?? [:]
                    object["revision"] = .string("rev-\(object["id"]?.stringValue ?? "")")
                    return .object(object)
                }
                return .json(.array(answered))
            }
            let report = try await fixture.repository(SynchronizationConfiguration()).synchronize().value
            #expect(report.pushed == 2)
            let one = try #require(try await fixture.stored("1"))
            #expect(one.snapshot?["revision"] == "rev-1" && one.object["revision"] == nil && one.syncState == .synced)
            #expect(try await fixture.stored("2")?.snapshot?["revision"] == "rev-2")
        }
    }

    @Test("a record changed locally while its batch is in flight keeps the change, with the reply as snapshot")
    func changedDuringPush() async throws {
        try await withSyncFixture { fixture in
            // Given three local creates, and a server that answers only after 2 was edited locally
            _ = try await fixture.local.create((1...3).map { Message(id: String($0), text: "t\($0)") }).value
            let local = fixture.local
            fixture.server.route(.post, "/messages/collection") { request, _ in
                let done = DispatchSemaphore(value: 0)
                Task {
                    _ = try? await local.update(Message(id: "2", text: "edited")).value
                    done.signal()
                }
                done.wait()
                return .json(request.json ?? [])
            }

            // When
            let report = try await fixture.repository(SynchronizationConfiguration()).synchronize().value

            // Then
            #expect(report.pushed == 2 && report.conflicts == 1 && report.failed == 0)
            let two = try #require(try await fixture.stored("2"))
            #expect(two.syncState == .updated && two.object["text"] == "edited" && two.snapshot?["text"] == "t2")
            #expect(try await fixture.stored("1")?.syncState == .synced)
        }
    }

    enum BadReply: String, CaseIterable, Sendable {
        case missingOne, unknownID, notAnArray, duplicate
    }

    @Test("a bad batch reply leaves the affected entities unsynced with a typed error", arguments: BadReply.allCases)
    func badReply(_ bad: BadReply) async throws {
        try await withSyncFixture { fixture in
            // Given three local creates
            _ = try await fixture.local.create((1...3).map { Message(id: String($0), text: "t\($0)") }).value
            switch bad {
            case .missingOne:
                fixture.server.setBatchReply(.missingOne, for: "messages")  // drops the last: "3"
            case .unknownID, .duplicate:
                fixture.server.route(.post, "/messages/collection") { request, _ in
                    let answered = (request.json?.arrayValue ?? []).map { element -> JSON in
                        guard var object = element.objectValue, object["id"] == "2" else { return element }
                        object["id"] = bad == .unknownID ? "zzz" : "1"
                        return .object(object)
                    }
                    return .json(.array(answered))
                }
            case .notAnArray:
                fixture.server.route(.post, "/messages/collection", response: .json(["ok": true]))
            }

            // When
            let report = try await fixture.repository(SynchronizationConfiguration(push: true)).synchronize().value

            // Then
            let unsynced: Set<String> =
                switch bad {
                case .missingOne: ["3"]
                case .unknownID: ["2"]
                case .duplicate: ["1", "2"]
                case .notAnArray: ["1", "2", "3"]
                }
            #expect(report.failed == unsynced.count)
            #expect(report.pushed == 3 - unsynced.count)
            #expect(!report.errors.isEmpty && report.errors.allSatisfy { $0.code == .decoding })
            #expect(report.errors.allSatisfy { $0.request?.method == "POST" } || bad == .missingOne)
            for id in ["1", "2", "3"] {
                let record = try #require(try await fixture.stored(id))
                #expect(
                    record.syncState == (unsynced.contains(id) ? .created : .synced), "record \(id)")
                #expect(record.object["text"] == .string("t\(id)"))
            }
            if bad == .unknownID { #expect(report.errors.contains { $0.message.contains("zzz") }) }
        }
    }

    @Test("tombstones are sent as DELETE; a 404 counts as done; a failure keeps the tombstone")
    func tombstones() async throws {
        try await withSyncFixture(objects: messageObjects(1...3)) { fixture in
            // Given three synced records deleted locally: 3 is gone on the server, 2's delete fails
            try await fixture.storage.upsert(
                ["1", "2", "3"].map { record($0, ["text": .string("server \($0)")]) }
            )
            _ = try await fixture.session.request(.delete, "messages/3", as: Okay.self).value
            try await fixture.local.delete(["1", "2", "3"].map { Message(id: $0, text: "") }).value
            fixture.server.inject(.status(500), times: 1, pathPrefix: "/messages/2")
            fixture.server.clearRequests()

            // When
            let report = try await fixture.repository(SynchronizationConfiguration()).synchronize().value

            // Then
            #expect(
                Array(fixture.requestLines.prefix(3)) == [
                    "DELETE /messages/1", "DELETE /messages/2", "DELETE /messages/3",
                ])
            #expect(report.deleted == 2 && report.failed == 1)
            #expect(report.errors.map(\.status) == [500])
            #expect(try await fixture.stored("1") == nil)
            #expect(try await fixture.stored("3") == nil)
            #expect(try await fixture.stored("2")?.syncState == .deleted)
            #expect(report.conflicts == 1)  // the pull lists 2, whose local delete is still pending
        }
    }
}
