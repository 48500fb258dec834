/// What to do with the pending entry for an entity when a new local write to it arrives.
public enum OutboxCoalescing: Sendable, Hashable {
    /// Keep the pending entry and add the new write as its own entry after it.
    case append
    /// Replace the pending entry with this one (same sequence and idempotency key).
    case replace(OutboxEntry)
    /// Remove the pending entry and record nothing: the server never needs to hear of either.
    case dropBoth
}

extension OutboxEntry {
    /// How a new write (`operation` with `payload`) to this entry's entity folds into it:
    /// create+update → create; create+patch → create with the patch applied; update or patch,
    /// then update → update; update+patch → update with the patch applied; patch+patch → one
    /// patch; anything+delete → delete; create+delete → nothing at all.
    ///
    /// A member the patch clears (`null`) stays in the folded create or update as `null`: the
    /// whole object goes then, and a server whose PUT keeps the members a body leaves out would
    /// keep the old value. The body is written by the repository's nil encoding
    /// (``RepositoryConfiguration/nilEncoding``: `.omit` leaves it out, as any PUT of it would).
    ///
    /// A delete ends the entity's chain of writes: a create after it makes the entity anew and
    /// stays an entry of its own (delete+create → both kept), so when the server turns out to no
    /// longer have the entity (a 404 to the delete, or to a write before it), the create still goes.
    ///
    /// An entry that was already sent (``attempts`` above 0) is never changed: the server may
    /// have applied it under its idempotency key, so the new write goes after it.
    ///
    /// - Returns: what to do with this entry.
    public func coalescing(_ operation: OutboxOperation, payload: JSON?) -> OutboxCoalescing {
        guard attempts == 0 else { return .append }
        var merged = self
        switch (self.operation, operation) {
        case (.create, .delete):
            return .dropBoth
        case (_, .delete):
            merged.operation = .delete
            merged.payload = nil
        case (.create, .update):
            merged.payload = payload
        case (.create, .patch), (.update, .patch):
            merged.payload = Self.folding(self.payload ?? .object([:]), patch: payload ?? .object([:]))
        case (.update, .update), (.patch, .update), (.delete, .update):
            merged.operation = .update
            merged.payload = payload
        case (.patch, .patch):
            guard let composed = Self.composing(self.payload ?? .object([:]), then: payload ?? .object([:])) else {
                return .append
            }
            merged.payload = composed
        case (.create, .create), (.update, .create), (.patch, .create), (.delete, .patch):
            // A create of what exists, or a patch of what was deleted: the server decides; keep both.
            return .append
        case (.delete, .create):
            // A new chain: the create makes the entity anew, whatever the server still has.
            return .append
        }
        return .replace(merged)
    }

    /// The whole `object` with the merge patch `patch` applied, each top-level member the patch
    /// clears kept as `null` (the object is sent whole, and a member left out of a PUT is kept by
    /// many servers). Nested members are merged as RFC 7396 says, as an entity writes them.
    static func folding(_ object: JSON, patch: JSON) -> JSON {
        let applied = object.applyingMergePatch(patch)
        guard case .object(var result) = applied, case .object(let members) = patch else { return applied }
        for (key, value) in members where value == .null { result[key] = .null }
        return .object(result)
    }

    /// One merge patch with the effect of `first` then `second`: members of `second` win, nested
    /// objects compose member by member, and a `null` (remove) is kept as an instruction. Nil when
    /// no single merge patch has that effect: `second` patches into an object a member that
    /// `first` removed or set to a non-object (sent in turn, the member is replaced whole; one
    /// patch could only merge into it).
    static func composing(_ first: JSON, then second: JSON) -> JSON? {
        guard case .object(var result) = first, case .object(let later) = second else { return second }
        for (key, value) in later {
            guard case .object = value, let earlier = result[key] else {
                result[key] = value
                continue
            }
            guard case .object = earlier, let composed = composing(earlier, then: value) else { return nil }
            result[key] = composed
        }
        return .object(result)
    }
}
