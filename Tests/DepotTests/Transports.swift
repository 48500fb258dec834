import Depot
import DepotAsyncHTTPClient
import Foundation

/// The transports every transport behaviour test runs against: URLSession always, and
/// AsyncHTTPClient when the package trait `AsyncHTTPClient` is on (`swift test --traits AsyncHTTPClient`).
enum Transport: String, CaseIterable, Sendable {
    case urlSession
    case asyncHTTPClient

    static var available: [Transport] {
        #if AsyncHTTPClient
            [.urlSession, .asyncHTTPClient]
        #else
            [.urlSession]
        #endif
    }

    func session(
        url: URL, headers: [String: String] = [:], configuration: SessionConfiguration = SessionConfiguration()
    ) -> any Networking {
        switch self {
        case .urlSession:
            return NetworkingSession(url: url, headers: headers, configuration: configuration)
        case .asyncHTTPClient:
            #if AsyncHTTPClient
                return AsyncHTTPClientSession(url: url, headers: headers, configuration: configuration)
            #else
                preconditionFailure("built without the AsyncHTTPClient trait")
            #endif
        }
    }
}
