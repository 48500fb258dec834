import Foundation

/// One validation message of a refused write: which field, what message. Read from the error
/// bodies of the common frameworks by `DepotError.fieldErrors`.
///
/// ```swift
/// catch let error as DepotError {
///     for problem in error.fieldErrors { print(problem.field ?? "(the whole object)", problem.message) }
/// }
/// ```
public struct FieldError: Sendable, Hashable, CustomStringConvertible {
    /// The field, nested names joined with dots (`"address.city"`, `"items.0.name"`); nil for a
    /// message about the whole object (DRF's `non_field_errors`, a JSON:API error without a pointer).
    public var field: String?
    /// The server's message, e.g. `"This field may not be blank."`.
    public var message: String

    /// Makes a field error.
    public init(field: String?, message: String) {
        self.field = field
        self.message = message
    }

    /// `"title: This field may not be blank."`.
    public var description: String { field.map { "\($0): \(message)" } ?? message }

    /// The field errors `body` holds, in the shape of the framework that wrote it:
    /// - JSON:API: `{"errors": [{"detail", "source": {"pointer": "/data/attributes/title"}}]}`;
    /// - FastAPI / pydantic: `{"detail": [{"loc": ["body", "title"], "msg": …}]}`;
    /// - marshmallow (webargs, flask-smorest): `{"errors": {"json": {"title": ["…"]}}}`;
    /// - Rails and Laravel: `{"errors": {"title": ["…"]}}`;
    /// - Django REST Framework: `{"title": ["…"]}` (nested objects and lists too).
    ///
    /// Empty when the body is none of these (a plain `{"detail": "Not found."}`, say).
    public static func parse(_ body: JSON) -> [FieldError] {
        guard let object = body.objectValue else {
            // A DRF bulk refusal: one object of field errors per item.
            guard let items = body.arrayValue else { return [] }
            return items.enumerated().flatMap { index, item in
                item.objectValue.map { fields($0, prefix: String(index)) } ?? []
            }
        }
        if let errors = object["errors"]?.arrayValue {
            return errors.compactMap { $0.objectValue.flatMap(jsonAPIError) }
        }
        if let errors = object["errors"]?.objectValue {
            // marshmallow keys its messages by location first (`json`, `query`, `form`…).
            let locations = [
                "json", "query", "form", "headers", "cookies", "files", "path", "querystring", "view_args",
            ]
            if !errors.isEmpty, errors.allSatisfy({ locations.contains($0.key) && $0.value.objectValue != nil }) {
                return errors.keys.sorted().flatMap { fields(errors[$0]?.objectValue ?? [:], prefix: nil) }
            }
            return fields(errors, prefix: nil)
        }
        if let detail = object["detail"]?.arrayValue {
            return detail.compactMap { $0.objectValue.flatMap(pydanticError) }
        }
        // DRF lists every field's messages (a bare string is a `detail`, not a field).
        guard !object.isEmpty, object.values.allSatisfy({ $0.stringValue == nil && isFieldMessages($0) }) else {
            return []
        }
        return fields(object, prefix: nil)
    }

    /// Whether `value` reads as DRF-style messages: a list of strings, or nested objects and lists
    /// of them.
    private static func isFieldMessages(_ value: JSON) -> Bool {
        switch value {
        case .string: true
        case .array(let items): items.allSatisfy(isFieldMessages)
        case .object(let members): members.values.allSatisfy(isFieldMessages)
        default: false
        }
    }

    /// DRF-style `{"field": ["message"], "nested": {"field": [...]}}`, field names joined by dots.
    private static func fields(_ object: JSONObject, prefix: String?) -> [FieldError] {
        object.keys.sorted().flatMap { key -> [FieldError] in
            let name = key == "non_field_errors" || key == "__all__" ? prefix : prefix.map { "\($0).\(key)" } ?? key
            return messages(object[key] ?? .null, field: name)
        }
    }

    private static func messages(_ value: JSON, field: String?) -> [FieldError] {
        switch value {
        case .string(let message): return [FieldError(field: field, message: message)]
        case .object(let members): return fields(members, prefix: field)
        case .array(let items):
            if items.allSatisfy({ $0.stringValue != nil }) {
                return items.compactMap { $0.stringValue.map { FieldError(field: field, message: $0) } }
            }
            // A list field's errors, one entry per item (`{}` for an item without any).
            return items.enumerated().flatMap { index, item in
                messages(item, field: field.map { "\($0).\(index)" } ?? String(index))
            }
        default: return []
        }
    }

    /// A JSON:API error object: its `detail` (else `title`, else `code`) at its `source`.
    private static func jsonAPIError(_ error: JSONObject) -> FieldError? {
        guard let message = error["detail"]?.stringValue ?? error["title"]?.stringValue ?? error["code"]?.stringValue
        else { return nil }
        let source = error["source"]?.objectValue
        if let pointer = source?["pointer"]?.stringValue {
            var tokens = pointer.split(separator: "/", omittingEmptySubsequences: true).map {
                $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            }
            if tokens.first == "data" { tokens.removeFirst() }
            if let first = tokens.first, first == "attributes" || first == "relationships" { tokens.removeFirst() }
            return FieldError(field: tokens.isEmpty ? nil : tokens.joined(separator: "."), message: message)
        }
        return FieldError(field: source?["parameter"]?.stringValue, message: message)
    }

    /// A pydantic error: `msg` at `loc`, its location's first element (`body`, `query`…) dropped.
    private static func pydanticError(_ error: JSONObject) -> FieldError? {
        guard let message = error["msg"]?.stringValue else { return nil }
        var path = (error["loc"]?.arrayValue ?? []).compactMap { MovedIDs.idText($0) }
        if let first = path.first, ["body", "query", "path", "header", "cookie"].contains(first) { path.removeFirst() }
        return FieldError(field: path.isEmpty ? nil : path.joined(separator: "."), message: message)
    }
}
