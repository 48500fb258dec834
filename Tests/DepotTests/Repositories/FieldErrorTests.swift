import Depot
import DepotTesting
import Foundation
import Testing

@Suite struct FieldErrorTests {
    /// An error body as a framework writes it, its status, and the field errors it holds.
    struct Shape: Sendable, CustomStringConvertible {
        var description: String
        var status: Int
        var body: JSON
        var expected: [FieldError]
    }

    static let shapes: [Shape] = [
        Shape(
            description: "Django REST Framework", status: 400,
            body: ["title": ["This field may not be blank."], "non_field_errors": ["Duplicate note."]],
            expected: [
                FieldError(field: nil, message: "Duplicate note."),
                FieldError(field: "title", message: "This field may not be blank."),
            ]),
        Shape(
            description: "Django REST Framework, nested", status: 400,
            body: ["address": ["city": ["Required."]], "tags": [[], ["Too long."]]],
            expected: [
                FieldError(field: "address.city", message: "Required."),
                FieldError(field: "tags.1", message: "Too long."),
            ]),
        Shape(
            description: "JSON:API", status: 422,
            body: [
                "errors": [
                    ["detail": "may not be blank", "source": ["pointer": "/data/attributes/title"], "status": "422"],
                    ["detail": "unknown person", "source": ["pointer": "/data/relationships/author"]],
                    ["title": "Invalid document", "source": ["pointer": "/data"]],
                    ["detail": "bad filter", "source": ["parameter": "filter[done]"]],
                ]
            ],
            expected: [
                FieldError(field: "title", message: "may not be blank"),
                FieldError(field: "author", message: "unknown person"),
                FieldError(field: nil, message: "Invalid document"),
                FieldError(field: "filter[done]", message: "bad filter"),
            ]),
        Shape(
            description: "FastAPI / pydantic", status: 422,
            body: [
                "detail": [
                    [
                        "type": "string_too_short", "loc": ["body", "title"],
                        "msg": "String should have at least 1 character",
                        "input": "",
                    ],
                    ["type": "missing", "loc": ["body", "items", 0, "name"], "msg": "Field required"],
                    ["type": "model_attributes_type", "loc": ["body"], "msg": "Input should be a valid dictionary"],
                ]
            ],
            expected: [
                FieldError(field: "title", message: "String should have at least 1 character"),
                FieldError(field: "items.0.name", message: "Field required"),
                FieldError(field: nil, message: "Input should be a valid dictionary"),
            ]),
        Shape(
            description: "marshmallow (flask-smorest, webargs)", status: 422,
            body: [
                "code": 422, "status": "Unprocessable Entity",
                "errors": ["json": ["title": ["Missing data for required field."], "extra": ["Unknown field."]]],
            ],
            expected: [
                FieldError(field: "extra", message: "Unknown field."),
                FieldError(field: "title", message: "Missing data for required field."),
            ]),
        Shape(
            description: "Rails / Laravel", status: 422,
            body: ["message": "The given data was invalid.", "errors": ["title": ["can't be blank"]]],
            expected: [FieldError(field: "title", message: "can't be blank")]),
        Shape(
            description: "a plain detail (no fields)", status: 400, body: ["detail": "Bad request."], expected: []),
    ]

    @Test("field errors read from each framework's error body, the raw body kept", arguments: shapes)
    func shape(_ shape: Shape) async throws {
        try await withStubServer { server in
            server.route(.post, "/messages", response: .json(shape.body, status: shape.status))
            let messages = MessageRepository(store: NetworkingSession(url: server.url))
            let error = await #expect(throws: DepotError.self) { try await messages.create(["text": ""]).value }
            #expect(error?.status == shape.status)
            #expect(error?.fieldErrors == shape.expected)
            let body = try #require(error?.responseBody)
            #expect(try JSON(parsing: body) == shape.body)
        }
    }

    @Test("a DRF bulk refusal names each item's fields by position")
    func bulk() {
        let body: JSON = [[:], ["title": ["This field may not be blank."]]]
        #expect(FieldError.parse(body) == [FieldError(field: "1.title", message: "This field may not be blank.")])
    }

    @Test("a field error prints as field: message")
    func description() {
        #expect(FieldError(field: "title", message: "Required.").description == "title: Required.")
        #expect(FieldError(field: nil, message: "Duplicate.").description == "Duplicate.")
    }
}
