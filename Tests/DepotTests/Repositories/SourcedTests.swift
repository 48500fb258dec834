import Depot
import DepotTesting
import Foundation
import Testing

private struct SourcedNote: Codable, Identifiable, Sendable {
    var id: String
    var text: String
}

private struct SourcedNotes: CRUDNetworkingStorageRepository {
    typealias Entity = SourcedNote
    let store: Networking
    let storage: Storage
    let path = "notes"
}

@Suite struct SourcedTests {
    @Test("a storage-backed answer's fields read through one .value, with origin at hand")
    func fieldsReadThrough() async throws {
        try await withStubServer { server in
            // Given
            server.resource("notes", objects: [["id": "1", "text": "hi"]])
            let notes = SourcedNotes(store: NetworkingSession(url: server.url), storage: InMemoryStorage())
            // When
            let note = try await notes.read("1").value
            let all = try await notes.readAll().value
            // Then
            #expect(note.text == "hi" && note.id == "1")
            #expect(note.origin == .remote && note.fallbackError == nil)
            #expect(all.count == 1 && all.first?.text == "hi" && all.origin == .remote)
        }
    }
}
