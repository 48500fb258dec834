import Foundation

/// Finds the top-level keys an `Encodable` value writes as nil, through its own `encode(to:)`: the
/// keys `encodeNil(forKey:)` or `encodeIfPresent(nil, forKey:)` is called for. `CodingKeys` and
/// custom `encode(to:)` are honoured because the value itself names the keys; keys of nested
/// containers are not looked at. For ``NilEncoding/null``, since `JSONEncoder` leaves such keys out.
struct NilKeyEncoder: Encoder {
    /// The keys seen so far, shared by the containers this encoder hands out.
    final class Recorder {
        var nilKeys: [String] = []
    }

    let recorder = Recorder()
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]

    /// The nil keys of `value`, in the order it wrote them.
    ///
    /// - Throws: what `value.encode(to:)` throws.
    static func nilKeys(of value: some Encodable) throws -> [String] {
        let encoder = NilKeyEncoder()
        try value.encode(to: encoder)
        return encoder.recorder.nilKeys
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordingContainer<Key>(recorder: recorder))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { DiscardingUnkeyedContainer() }

    func singleValueContainer() -> any SingleValueEncodingContainer { DiscardingSingleValueContainer() }
}

/// The top-level container: records nil keys, ignores values.
private struct RecordingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let recorder: NilKeyEncoder.Recorder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { recorder.nilKeys.append(key.stringValue) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}

    private mutating func record(_ isNil: Bool, _ key: Key) {
        if isNil { recorder.nilKeys.append(key.stringValue) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: Int128?, forKey key: Key) throws { record(value == nil, key) }
    mutating func encodeIfPresent(_ value: UInt128?, forKey key: Key) throws { record(value == nil, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DiscardingUnkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { DiscardingEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { DiscardingEncoder() }
}

/// An encoder for nested values: accepts everything, keeps nothing.
private struct DiscardingEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(DiscardingKeyedContainer<Key>())
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { DiscardingUnkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { DiscardingSingleValueContainer() }
}

private struct DiscardingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DiscardingUnkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { DiscardingEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { DiscardingEncoder() }
}

private struct DiscardingUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count = 0
    mutating func encodeNil() throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws { count += 1 }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        count += 1
        return KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return DiscardingUnkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { DiscardingEncoder() }
}

private struct DiscardingSingleValueContainer: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
