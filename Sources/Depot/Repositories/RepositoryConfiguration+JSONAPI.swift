import Foundation

extension RepositoryConfiguration {
    /// A JSON:API server (jsonapi.org): every body a document of resources of `type`, every
    /// answer read from one, `application/vnd.api+json` as `Content-Type` and `Accept` on every
    /// request (PATCH included), update sent as PATCH (JSON:API has no PUT), and a server's
    /// `errors[]` read as `DepotError.fieldErrors`. Page with
    /// ``SynchronizationConfiguration/jsonAPI`` (`links.next`).
    ///
    /// ```swift
    /// struct Notes: CRUDNetworkingStorageRepository, SynchronizableRepository {
    ///     typealias Entity = Note  // a plain Codable model
    ///     let store: Networking
    ///     let storage: Storage
    ///     let path = "notes"
    ///     var configuration: RepositoryConfiguration { .jsonAPI(type: "notes") }
    ///     var synchronization: SynchronizationConfiguration { .jsonAPI }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: the resources' `type`, e.g. `"notes"`.
    ///   - clientGeneratedIDs: whether a create sends the entity's id (false: the server assigns it).
    public static func jsonAPI(type: String, clientGeneratedIDs: Bool = false) -> RepositoryConfiguration {
        var configuration = RepositoryConfiguration(envelope: "data", collectionEnvelope: "data", patchFormat: .json)
        configuration.jsonAPIResource = JSONAPIResource(type: type, clientGeneratedIDs: clientGeneratedIDs)
        configuration.updateMethod = .patch
        return configuration
    }
}

extension SynchronizationConfiguration {
    /// A JSON:API server: pages followed by the document's `links.next`, and no batch endpoint
    /// (changes go entity by entity).
    public static var jsonAPI: SynchronizationConfiguration {
        SynchronizationConfiguration(pagination: .nextLink("/links/next"), pushMode: .each)
    }
}

extension RepositoryConfiguration {
    /// ``headers`` as every request of the repository sends them: with a JSON:API resource,
    /// `Accept: application/vnd.api+json` unless the app names its own `Accept`.
    var requestHeaders: [String: String] {
        guard jsonAPIResource != nil, !headers.keys.contains(where: { $0.lowercased() == "accept" }) else {
            return headers
        }
        return headers.merging(["Accept": JSONAPIResource.mediaType]) { old, _ in old }
    }
}
