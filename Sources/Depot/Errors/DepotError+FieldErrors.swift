import Foundation

extension DepotError {
    /// The validation messages of the server's answer, field by field, read from the error body
    /// of the common frameworks (Django REST Framework, JSON:API `errors[]`, FastAPI / pydantic,
    /// marshmallow, Rails, Laravel; see ``FieldError/parse(_:)``). Empty when there is no body or
    /// it holds none; `responseBody` keeps the body as it came.
    ///
    /// ```swift
    /// do { _ = try await notes.create(Note(id: 0, title: "")).value }
    /// catch let error as DepotError {
    ///     let title = error.fieldErrors.first { $0.field == "title" }?.message
    /// }
    /// ```
    ///
    /// Messages under a wrapper named after the resource the request went to (django-tastypie's
    /// `{"note": {"title": ["This field is required."]}}` for `POST /api/v1/note/`) read as the
    /// field's own name, `title`: the wrapper is the last segment of the collection's path in the
    /// request's URL, never a guess from the body alone.
    public var fieldErrors: [FieldError] {
        guard let body = responseBody, !body.isEmpty, let json = try? JSON(parsing: body) else { return [] }
        return FieldError.parse(Self.unwrappingResource(json, url: request?.url))
    }

    /// `json`'s only member when its key names the resource `url` goes to (the last segment of the
    /// path, or the one before it for an item's URL) and it holds an object; `json` otherwise.
    static func unwrappingResource(_ json: JSON, url: String?) -> JSON {
        guard case .object(let object) = json, object.count == 1, let (key, inner) = object.first,
            case .object = inner, let url, let components = URLComponents(string: url)
        else { return json }
        let segments = components.percentEncodedPath.split(separator: "/").map {
            String($0).removingPercentEncoding ?? String($0)
        }
        return segments.suffix(2).contains(key) ? inner : json
    }
}

extension OutboxRejection {
    /// The validation messages of the refusal, field by field (see `DepotError.fieldErrors`).
    public var fieldErrors: [FieldError] { json.map(FieldError.parse) ?? [] }
}
