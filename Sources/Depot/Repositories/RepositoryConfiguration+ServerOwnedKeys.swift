import Foundation

extension RepositoryConfiguration {
    /// `body` as a write of `operation` sends it: the ``serverOwnedKeys`` left out, and on a create
    /// the fields naming `entityID` when it is a ``TemporaryID`` (a temporary id never leaves the
    /// device: the server assigns the entity's id).
    ///
    /// Every road that builds a write body calls it: direct creates, updates and patches, the
    /// outbox (forwarder, immediate sends, conflict re-sends) and the push.
    func writeBody(_ body: JSONObject, creating: Bool, entityID: String?) -> JSONObject {
        Self.writeBody(body, serverOwnedKeys: serverOwnedKeys, creating: creating, entityID: entityID)
    }

    /// ``writeBody(_:creating:entityID:)`` with the server's keys given.
    static func writeBody(
        _ body: JSONObject, serverOwnedKeys: Set<String>, creating: Bool, entityID: String?
    ) -> JSONObject {
        var body = body
        if !serverOwnedKeys.isEmpty { body = body.filter { !serverOwnedKeys.contains($0.key) } }
        if creating, let entityID, TemporaryID.isTemporary(entityID) {
            body = body.filter { MovedIDs.idText($0.value) != entityID }
        }
        return body
    }
}
