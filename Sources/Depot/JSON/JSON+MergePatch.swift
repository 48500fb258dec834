/// RFC 7396 JSON merge patches: making one from two values, and applying one.
///
/// A merge patch is a JSON object that lists what changed: members with a new value, removed
/// members as `null`, nested objects patched member by member; anything that is not an object
/// (arrays included) replaces the old value whole.
///
/// ```swift
/// let old: JSON = ["text": "hi", "meta": ["pinned": false, "color": "red"], "tags": ["a"]]
/// let new: JSON = ["text": "hi", "meta": ["pinned": true], "tags": ["a", "b"]]
/// let patch = JSON.mergePatch(from: old, to: new)
/// // {"meta": {"color": null, "pinned": true}, "tags": ["a", "b"]}
/// assert(old.applyingMergePatch(patch!) == new)
/// ```
extension JSON {
    /// The RFC 7396 merge patch that turns `old` into `new`, or nil when there is nothing to change.
    ///
    /// Changed and added members are in the patch with their new value, removed members as
    /// `null`, nested objects are diffed recursively, and arrays and other non-objects replace the
    /// old value whole. When either side is not an object the patch is `new` itself.
    ///
    /// A merge patch cannot say "set this member to `null`": `null` in a patch means "remove".
    /// So a member that is `null` in `new` is treated as absent: it is sent as `null` (remove)
    /// when `old` has a non-null value for it, and left out when `old` has no such member or has
    /// `null` there too. `null` members inside an added or replaced object are left out as well.
    /// Hence `old.applyingMergePatch(patch) == new` holds whenever `new` has no `null` members
    /// (whatever `old` holds); when it has some, the result is `new` without them, which is what
    /// an RFC 7396 server stores.
    ///
    /// - Parameters:
    ///   - old: the value as it was (for an entity: the server's last answer, re-encoded).
    ///   - new: the value as it is now.
    /// - Returns: the merge patch, or nil when applying it would change nothing.
    public static func mergePatch(from old: JSON, to new: JSON) -> JSON? {
        guard case .object(let oldObject) = old, case .object(let newObject) = new else {
            if old == new { return nil }
            if case .object = new { return new.removingNullMembers() }
            return new
        }
        let patch = mergePatch(from: oldObject, to: newObject)
        return patch.isEmpty ? nil : .object(patch)
    }

    private static func mergePatch(from old: JSONObject, to new: JSONObject) -> JSONObject {
        var patch: JSONObject = [:]
        for (key, oldValue) in old {
            switch (oldValue, new[key]) {
            case (_, nil):
                patch[key] = .null
            case (_, .null?):
                if oldValue != .null { patch[key] = .null }
            case (.object(let oldMember), .object(let newMember)?):
                let nested = mergePatch(from: oldMember, to: newMember)
                if !nested.isEmpty { patch[key] = .object(nested) }
            case (_, let newValue?):
                if oldValue != newValue { patch[key] = newValue.removingNullMembers() }
            }
        }
        for (key, newValue) in new where old[key] == nil && newValue != .null {
            patch[key] = newValue.removingNullMembers()
        }
        return patch
    }

    /// This value without `null` members in any object, however deep (arrays are kept as they
    /// are: a merge patch replaces them whole, nulls included).
    private func removingNullMembers() -> JSON {
        guard case .object(let object) = self else { return self }
        var kept: JSONObject = [:]
        for (key, value) in object where value != .null {
            kept[key] = value.removingNullMembers()
        }
        return .object(kept)
    }

    /// This value with the RFC 7396 merge patch `patch` applied (the RFC's `MergePatch` function).
    ///
    /// When `patch` is an object, each of its members with a `null` value removes that member,
    /// others are merged recursively into the member of the same name (a value that is not an
    /// object is first replaced by an empty object). Any other `patch` replaces the value whole.
    ///
    /// ```swift
    /// let target: JSON = ["a": "b", "c": ["d": "e", "f": "g"]]
    /// target.applyingMergePatch(["a": "z", "c": ["f": nil]])   // {"a": "z", "c": {"d": "e"}}
    /// ```
    ///
    /// - Parameter patch: the merge patch.
    /// - Returns: the patched value.
    public func applyingMergePatch(_ patch: JSON) -> JSON {
        guard case .object(let patchObject) = patch else { return patch }
        var target: JSONObject
        if case .object(let object) = self { target = object } else { target = [:] }
        for (key, value) in patchObject {
            if value == .null {
                target[key] = nil
            } else {
                target[key] = (target[key] ?? .null).applyingMergePatch(value)
            }
        }
        return .object(target)
    }
}
