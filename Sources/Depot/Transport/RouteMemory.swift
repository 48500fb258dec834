import Foundation
import Logging

/// What one transport learned about its server's routes, for the transport's life: the PATCH
/// format each PATCH route reads (negotiated on a 415) and the batch routes the server does not
/// have (found by `synchronize()`'s ``PushMode/automatic``).
///
/// Each ``NetworkingSession`` and `AsyncHTTPClientSession` holds its own, so two sessions (two
/// servers behind one URL in turn, two tests) never share what one of them learned. A transport of
/// your own returns one from ``Networking/routeMemory`` to get the same; without one, every PATCH
/// starts from the configured format and every automatic push tries the batch route again.
///
/// ```swift
/// struct Recording: Networking {
///     let base: NetworkingSession
///     var routeMemory: RouteMemory? { base.routeMemory }   // a wrapper forwards its base's
///     func send(_ request: NetworkRequest) async throws -> NetworkResponse { try await base.send(request) }
/// }
/// ```
public final class RouteMemory: Sendable {
    /// A PATCH route and the format its repository is configured with.
    private struct PatchKey: Hashable {
        var route: Route
        var configured: PatchFormat
    }

    private let patchFormats = LockedValue<[PatchKey: PatchFormat]>([:])
    private let missingBatchRoutes = LockedValue<Set<Route>>([])
    private static let logger = Logger(label: "depot.patch")

    /// Makes an empty memory.
    public init() {}

    /// The format to PATCH `route` with: the one negotiated earlier for a repository configured
    /// with `configured`, else `configured`.
    func patchFormat(for route: Route, configured: PatchFormat) -> PatchFormat {
        patchFormats.withLock { $0[PatchKey(route: route, configured: configured)] } ?? configured
    }

    /// Remembers `format` for `route` (configured as `configured`), logging the first time it
    /// changes from `old`.
    func remember(_ format: PatchFormat, for route: Route, configured: PatchFormat, after old: PatchFormat) {
        let key = PatchKey(route: route, configured: configured)
        let changed = patchFormats.withLock { formats in
            defer { formats[key] = format }
            return formats[key] != format
        }
        if changed {
            Self.logger.info(
                "the server answered 415 to a PATCH as \(old.mediaType); sending \(format.mediaType) from now on",
                metadata: ["route": "\(route.method.rawValue) \(route.path)"])
        }
    }

    /// Whether `route` was found missing as a batch endpoint.
    func isMissingBatchRoute(_ route: Route) -> Bool { missingBatchRoutes.withLock { $0.contains(route) } }

    /// Records that the server has no batch endpoint at `route`; true the first time.
    @discardableResult
    func markMissingBatchRoute(_ route: Route) -> Bool { missingBatchRoutes.withLock { $0.insert(route).inserted } }
}
