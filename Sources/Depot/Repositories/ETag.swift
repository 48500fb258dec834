/// Helpers for `ETag` header values (RFC 9110 §8.8.3): a weak tag is written `W/"…"`, a strong
/// one `"…"`.
///
/// `If-Match` compares tags strongly, so a weak tag never matches there: send only strong ones.
///
/// ```swift
/// ETag.isWeak(#"W/"abc""#)    // true
/// ETag.isStrong(#""abc""#)    // true
/// ```
public enum ETag {
    /// True for a weak tag: one that starts with `W/` (after optional whitespace). A lowercase
    /// `w/`, which RFC 9110 does not allow but some servers send, is taken as weak too.
    public static func isWeak(_ etag: String) -> Bool {
        let trimmed = etag.drop { $0 == " " || $0 == "\t" }
        return trimmed.hasPrefix("W/") || trimmed.hasPrefix("w/")
    }

    /// What a record's write `ETag` (``StoredRecord/etag``) holds when the server's version of the
    /// record is unknown: a write's answer changed it without telling it (a batch's element, a
    /// `204` or `200` without an `ETag`), over a record whose version was known. It is never sent:
    /// the next update, PATCH or delete reads the server's version first (``StoredRecord/isVersionUnknown``).
    /// Written as a weak tag, so no road can send it as `If-Match`.
    public static let unknownVersion = #"W/"depot:version-unknown""#

    /// True for a strong tag: one that is not weak and not empty. Unquoted tags, which some
    /// servers send, count as strong and are sent back exactly as received.
    public static func isStrong(_ etag: String) -> Bool {
        !isWeak(etag) && !etag.allSatisfy { $0 == " " || $0 == "\t" }
    }
}
