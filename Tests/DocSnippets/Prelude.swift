// What the README's and the DocC articles' ```swift blocks use without showing it. The blocks
// are compiled (scripts/snippets puts each in a function of its own in Snippets.swift), never
// run: the values here are stand-ins that trap if called.
import Depot
import DepotSQLite
import DepotTesting
import Foundation

/// The README's message.
struct Message: Codable, Identifiable, Sendable, Hashable {
    var id: String
    var text: String
}

/// The README's note, from Django REST Framework.
struct Note: Codable, Identifiable, Sendable, Hashable {
    var id: Int
    var text: String
}

/// An author, as an action imports them.
struct Author: Codable, Sendable {
    var name: String
}

/// The repository of the README's first example, with patch.
struct MessageRepository: PatchableRepository {
    typealias Entity = Message
    let store: Networking
    let path = "messages"
    let snapshots = SnapshotCache()
}

/// The README's local copy, synchronized: notes from a server with incremental pulls.
struct CachedNotes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    typealias Entity = Note
    let store: Networking
    let storage: Storage
    let path = "notes/"
}

/// The Caching article's repository: messages read cache-first, fresh for 30 s by default.
struct RecentMessages: CRUDNetworkingStorageRepository {
    typealias Entity = Message
    let store: Networking
    let storage: Storage
    let path = "messages"
    var strategy: Strategy = .cacheFirst
    var configuration = RepositoryConfiguration(defaultMaxAge: 30)
}

/// Stands in for a value a block uses: compiled, never run.
private func standIn<Value>() -> Value { fatalError("a documentation stand-in; snippets are compiled, not run") }

/// The session of the examples.
var session: NetworkingSession { standIn() }
/// The messages of the examples.
var messages: MessageRepository { standIn() }
/// The local copy of the examples.
var cached: CachedNotes { standIn() }
/// The storage of the examples.
var storage: SQLiteStorage { standIn() }
/// The forwarder of the examples.
var forwarder: Forwarder { standIn() }
/// A stub server, as `withStubServer` hands it over.
var server: StubServer { standIn() }
/// A URL.
var url: URL { standIn() }
/// A file path.
var path: String { standIn() }
/// A pending answer.
var answer: Promise<Int> { standIn() }

/// Something to await.
func loadCount() async throws -> Int { standIn() }
/// Something else to await.
func loadSomething() async throws -> String { standIn() }
/// A call that returns a promise.
func fetchName(for number: Int) -> Promise<String> { standIn() }
/// UI stand-ins.
func show<Value>(_ value: Value) {}
/// UI stand-ins.
func render<Value>(_ value: Value) {}
/// UI stand-ins.
func hideSpinner() {}
/// UI stand-ins.
func badge(_ count: Int) {}
/// A log.
func log<Value>(_ value: Value) {}

/// SwiftUI's `State`, which Linux lacks: the README's SwiftUI line compiles against this.
@propertyWrapper struct State<Value> {
    /// The value.
    var wrappedValue: Value
}
