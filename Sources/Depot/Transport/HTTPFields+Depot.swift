import HTTPTypes

extension HTTPFields {
    /// The first value of field `name`, matched without regard to case; nil for a name that is not
    /// a valid field name.
    func firstValue(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { self[values: $0].first }
    }

    /// Every value of field `name` in order, matched without regard to case.
    func allValues(_ name: String) -> [String] {
        HTTPField.Name(name).map { self[values: $0] } ?? []
    }

    /// Adds every field of `other` whose name this list lacks, keeping `other`'s order and repeats.
    mutating func addMissing(from other: HTTPFields) {
        let present = Set(map(\.name))
        append(contentsOf: other.filter { !present.contains($0.name) })
    }

    /// Replaces every field whose name `other` has with `other`'s fields (they win), keeping repeats.
    mutating func override(with other: HTTPFields) {
        let names = Set(other.map(\.name))
        removeAll { names.contains($0.name) }
        append(contentsOf: other)
    }

    /// Converts a dictionary (sorted by name, so the order is stable), setting aside the names of
    /// fields that could smuggle another header in: a name or value with CR, LF or NUL (checked on
    /// unicode scalars), an empty name or one that is not an HTTP token. HTTPFields would silently
    /// turn such bytes into spaces; Depot refuses them with `.invalidRequest` before sending.
    static func checking(_ dictionary: [String: String]) -> (fields: HTTPFields, rejected: [String]) {
        var fields = HTTPFields()
        var rejected: [String] = []
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            if name.isEmpty || isInjection(name) || isInjection(value) {
                rejected.append(name)
            } else if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            } else {
                rejected.append(name)
            }
        }
        return (fields, rejected)
    }

    /// True when `text` holds CR, LF or NUL.
    static func isInjection(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
    }

    /// Fields from a dictionary, dropping names that cannot be fields (for answers, not requests).
    init(lenient dictionary: [String: String]) {
        self.init()
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) { append(HTTPField(name: fieldName, value: value)) }
        }
    }
}

extension HTTPFields {
    /// The fields an error kept (`DepotError/responseHeaders`), in order; names that cannot be
    /// field names are dropped.
    public init(_ headers: DepotError.Headers) {
        self.init()
        for header in headers.fields {
            if let name = HTTPField.Name(header.name) { append(HTTPField(name: name, value: header.value)) }
        }
    }
}

extension DepotError.Headers {
    /// The fields of `fields`, in order, names as received.
    public init(_ fields: HTTPFields) {
        self.init(fields.map { DepotError.Header(name: $0.name.rawName, value: $0.value) })
    }
}
