import Depot
import Foundation

/// The app's session for the account signed in now, in rounds whose sessions declare their
/// account (``CheckServerShape/declaresAccounts``): each call goes through the session of the
/// account signed in when it is made, and ``account`` is that session's. The forwarder sends
/// through it, so an entry made as another account is held, as an app that switches accounts on
/// one outbox holds it (``OutboxEntry/account``).
struct CheckSignedIn: Networking {
    /// Each account's session.
    let sessions: [String: any Networking]
    /// The account signed in now (`A` or `B`).
    let current: LockedValue<String>

    /// The session of the account signed in now.
    var session: any Networking { sessions[current.withLock { $0 }]! }

    func send(_ request: NetworkRequest) async throws -> NetworkResponse { try await session.send(request) }

    @discardableResult
    func send(
        _ request: NetworkRequest, completion: @escaping @Sendable (Result<NetworkResponse, any Error>) -> Void
    ) -> any NetworkCall {
        session.send(request, completion: completion)
    }

    var baseURL: URL? { session.baseURL }
    var routeMemory: RouteMemory? { session.routeMemory }
    var account: String? { session.account }

    func prepared(_ request: NetworkRequest) async throws -> NetworkRequest { try await session.prepared(request) }
}
