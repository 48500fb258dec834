import Foundation

/// How a repository's entities appear as JSON:API resources (jsonapi.org): their `type`, and
/// whether the client's ids go out on create.
///
/// Bodies go out as documents, `{"data": {"type": "notes", "id": "1", "attributes": {…}}}`;
/// answers are read back into the plain object a `Codable` model decodes: the attributes, the
/// `id` (an integer when the entity's id is one) and, when the resource has them, its
/// `relationships` under that key, kept as they came. A `relationships` member of the entity's
/// object goes back out as the resource's `relationships`.
public struct JSONAPIResource: Sendable, Hashable {
    /// The resource type, e.g. `"notes"`.
    public var type: String
    /// Whether a create sends the entity's id (a server that accepts client-generated ids);
    /// false (the default): the server assigns it, and a create's document has no `id`.
    public var clientGeneratedIDs: Bool

    /// Makes a resource description.
    public init(type: String, clientGeneratedIDs: Bool = false) {
        self.type = type
        self.clientGeneratedIDs = clientGeneratedIDs
    }

    /// The JSON:API media type, sent as `Content-Type` and `Accept`.
    public static let mediaType = "application/vnd.api+json"
}
