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
    public var fieldErrors: [FieldError] {
        guard let body = responseBody, !body.isEmpty, let json = try? JSON(parsing: body) else { return [] }
        return FieldError.parse(json)
    }
}

extension OutboxRejection {
    /// The validation messages of the refusal, field by field (see `DepotError.fieldErrors`).
    public var fieldErrors: [FieldError] { json.map(FieldError.parse) ?? [] }
}
