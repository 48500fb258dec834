import Foundation

/// Percent-encodes an id as one path component: `/` can never split it, and `.` or `..` can never
/// climb out of the collection.
public func encodePathComponent(_ component: String) -> String {
    // Letters, digits, `-`, `_` and `~` (every id Depot makes, and most ids servers make) need no
    // encoding, and a component of them alone is never all dots.
    if !component.isEmpty, component.utf8.allSatisfy(isPlainPathByte) { return component }
    let encoded = component.addingPercentEncoding(withAllowedCharacters: pathComponentAllowed) ?? component
    if encoded.allSatisfy({ $0 == "." }) {
        return String(repeating: "%2E", count: encoded.count)
    }
    return encoded
}

/// The characters a path component keeps as they are, made once.
private let pathComponentAllowed: CharacterSet = {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/;?#%")
    return allowed
}()

/// True for an ASCII letter, digit, `-`, `_` or `~`: bytes every encoding of a path keeps.
private func isPlainPathByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
        true
    default:
        false
    }
}
