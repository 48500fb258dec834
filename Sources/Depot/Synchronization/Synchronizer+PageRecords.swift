import Foundation

extension Synchronizer {
    /// A pull page's server objects as synced records, all at once: each object's JSON text is
    /// written once (its snapshot), the entities are decoded from those texts in one `JSONDecoder`
    /// call and encoded back in one `JSONEncoder` call, rather than one of each per element (their
    /// setup cost as much as the work for small entities).
    ///
    /// - Returns: the records, in the order of `raws`; nil when the entity is not plainly `Codable`
    ///   (a hand-mapped entity) or any element fails, so the caller makes each record on its own
    ///   with ``encodedRecord(_:collection:coding:)``, which names each failure.
    static func encodedRecords(
        _ raws: [JSONObject], collection: String, coding: EntityCoding = .default
    ) -> [EncodedRecord]? {
        guard raws.count > 1, Entity.self is any Decodable.Type, Entity.self is any Encodable.Type,
            !(Entity.self is any DictionaryInitializable.Type), !(Entity.self is any DictionaryRepresentable.Type)
        else { return nil }
        do {
            var texts: [Data] = []
            texts.reserveCapacity(raws.count)
            var array = Data([UInt8(ascii: "[")])
            for raw in raws {
                let text = try JSONWriter.write(.object(raw))
                if !texts.isEmpty { array.append(UInt8(ascii: ",")) }
                array.append(text)
                texts.append(text)
            }
            array.append(UInt8(ascii: "]"))
            let entities = try JSONMapping.entities(Entity.self, from: array, coding: coding)
            guard entities.count == raws.count, let encodable = entities as Any as? any Encodable else { return nil }
            guard let objects = Self.objectTexts(in: try coding.encoder().encode(encodable)),
                objects.count == raws.count
            else { return nil }
            var records: [EncodedRecord] = []
            records.reserveCapacity(raws.count)
            // Indices, not zip: a zip of the generic entity array asks for its metadata per element.
            for index in entities.indices {
                let (object, rawText) = (objects[index], String(decoding: texts[index], as: UTF8.self))
                records.append(
                    EncodedRecord(
                        unchecked: collection, id: entities[index].id.pathComponent, object: object,
                        syncState: .synced, snapshot: rawText == object ? .sameAsObject : .encoded(rawText), etag: nil))
            }
            return records
        } catch {
            return nil
        }
    }

    /// The texts of the elements of a compact JSON array of objects (as `JSONEncoder` writes it:
    /// no whitespace); nil when `data` is not one.
    static func objectTexts(in data: Data) -> [String]? {
        let bytes = [UInt8](data)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        var texts: [String] = []
        var (depth, inString, escaped, start) = (0, false, false, 1)
        for index in 1..<(bytes.count - 1) {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ",") where depth == 0:
                texts.append(String(decoding: bytes[start..<index], as: UTF8.self))
                start = index + 1
            default: break
            }
        }
        if bytes.count > 2 { texts.append(String(decoding: bytes[start..<(bytes.count - 1)], as: UTF8.self)) }
        guard texts.allSatisfy({ $0.utf8.first == UInt8(ascii: "{") && $0.utf8.last == UInt8(ascii: "}") }) else {
            return nil
        }
        return texts
    }
}
