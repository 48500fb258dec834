import Foundation

extension HTTPCacheEntry {
    /// The entry as the object of its stored record.
    var object: JSONObject {
        var object: JSONObject = [
            "url": .string(url), "receivedAt": .double(receivedAt.timeIntervalSince1970),
            "initialAge": .integer(Int64(initialAge)), "noCache": .bool(noCache),
            "mustRevalidate": .bool(mustRevalidate), "vary": .array(vary.map(JSON.string)),
            "varyHash": .string(varyHash),
        ]
        if let etag { object["etag"] = .string(etag) }
        if let lastModified { object["lastModified"] = .string(lastModified) }
        if let lifetime { object["lifetime"] = .integer(Int64(lifetime)) }
        if let staleWhileRevalidate { object["staleWhileRevalidate"] = .integer(Int64(staleWhileRevalidate)) }
        if let staleIfError { object["staleIfError"] = .integer(Int64(staleIfError)) }
        if let ids { object["ids"] = .array(ids.map(JSON.string)) }
        if let paging { object["paging"] = paging }
        if let generation { object["generation"] = .string(generation) }
        if let digest { object["digest"] = .string(digest) }
        if !pagingHeaders.isEmpty {
            object["pagingHeaders"] = .object(pagingHeaders.mapValues { .array($0.map(JSON.string)) })
        }
        return object
    }

    /// The entry a stored record holds; nil for one this version cannot read (it is then not
    /// used, and replaced by the next answer). Never traps on what the row holds.
    init?(object: JSONObject) {
        guard case .string(let url)? = object["url"], case .string(let varyHash)? = object["varyHash"],
            let received = Self.seconds(object["receivedAt"]), let initialAge = Self.count(object["initialAge"]),
            case .array(let vary)? = object["vary"]
        else { return nil }
        self.url = url
        self.varyHash = varyHash
        receivedAt = Date(timeIntervalSince1970: received)
        self.initialAge = initialAge
        self.vary = vary.compactMap(\.stringValue)
        etag = object["etag"]?.stringValue
        lastModified = object["lastModified"]?.stringValue
        lifetime = Self.count(object["lifetime"])
        noCache = object["noCache"] == .bool(true)
        mustRevalidate = object["mustRevalidate"] == .bool(true)
        staleWhileRevalidate = Self.count(object["staleWhileRevalidate"])
        staleIfError = Self.count(object["staleIfError"])
        if case .array(let ids)? = object["ids"] {
            let texts = ids.compactMap(\.stringValue)
            guard texts.count == ids.count else { return nil }
            self.ids = texts
        } else {
            ids = nil
        }
        paging = object["paging"]
        var headers: [String: [String]] = [:]
        for (name, values) in object["pagingHeaders"]?.objectValue ?? [:] {
            headers[name] = values.arrayValue?.compactMap(\.stringValue) ?? []
        }
        pagingHeaders = headers
        generation = object["generation"]?.stringValue
        digest = object["digest"]?.stringValue
    }

    /// The longest delta-seconds kept: 2^31, the value RFC 9111 §1.2.2 clamps larger ones to, so
    /// a clamped `max-age` or `Age` reads back as it was written.
    static let maximumSeconds: Int64 = 1 << 31

    /// A non-negative integer, a larger one than ``maximumSeconds`` read as that, else nil.
    private static func count(_ json: JSON?) -> Int? {
        guard case .integer(let value)? = json, value >= 0 else { return nil }
        return Int(clamping: min(value, maximumSeconds))
    }

    /// Finite seconds since 1970, else nil.
    private static func seconds(_ json: JSON?) -> Double? {
        switch json {
        case .double(let value)? where value.isFinite: value
        case .integer(let value)?: Double(value)
        default: nil
        }
    }
}
