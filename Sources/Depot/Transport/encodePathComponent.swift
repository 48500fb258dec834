import Foundation

/// Percent-encodes an id as one path component: `/` can never split it, and `.` or `..` can never
/// climb out of the collection.
public func encodePathComponent(_ component: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "/;?#%")
    let encoded = component.addingPercentEncoding(withAllowedCharacters: allowed) ?? component
    if encoded.allSatisfy({ $0 == "." }) {
        return String(repeating: "%2E", count: encoded.count)
    }
    return encoded
}
