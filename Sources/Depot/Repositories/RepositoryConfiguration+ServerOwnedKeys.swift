import Foundation

extension RepositoryConfiguration {
    /// `body` as a write sends it: the ``serverOwnedKeys`` left out, and on a create the fields
    /// naming `temporaryID`, the id Depot made for the entity when the store recorded one (a
    /// temporary id never leaves the device: the server assigns the entity's id). An id the app
    /// gave is sent as it is, whatever it looks like.
    ///
    /// Every road that builds a write body calls it: direct creates, updates and patches, the
    /// outbox (forwarder, immediate sends, conflict re-sends) and the push.
    func writeBody(_ body: JSONObject, creating: Bool, temporaryID: String?) -> JSONObject {
        Self.writeBody(body, serverOwnedKeys: serverOwnedKeys, creating: creating, temporaryID: temporaryID)
    }

    /// ``writeBody(_:creating:temporaryID:)`` with the server's keys given.
    static func writeBody(
        _ body: JSONObject, serverOwnedKeys: Set<String>, creating: Bool, temporaryID: String?
    ) -> JSONObject {
        var body = body
        if !serverOwnedKeys.isEmpty { body = body.filter { !serverOwnedKeys.contains($0.key) } }
        if creating, let temporaryID {
            body = body.filter { MovedIDs.idText($0.value) != temporaryID }
        }
        return body
    }
}
