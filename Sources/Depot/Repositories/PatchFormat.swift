import Foundation

/// How a PATCH body goes out. Depot computes every patch as an RFC 7396 merge patch (the changed
/// keys; `null` for a removed one) and writes it in the format the server reads.
///
/// ```swift
/// var configuration = RepositoryConfiguration()
/// configuration.patchFormat = .json  // Django REST Framework, Rails, Express, Laravel, FastAPI
/// ```
///
/// A 415 (Unsupported Media Type) means the server did not act, so Depot negotiates: with an
/// `Accept-Patch` header in the answer it takes the first format listed that it speaks; without
/// one it falls back from `.mergePatch` to `.json` once. The format that worked is remembered per
/// PATCH route by the session that sent it (its ``Networking/routeMemory``), and logged once.
public enum PatchFormat: String, Sendable, Hashable, CaseIterable {
    /// RFC 7396, `application/merge-patch+json`: the changed keys, `null` for a removed one.
    case mergePatch
    /// A partial object as `application/json`: what most frameworks read as a partial update
    /// (Django REST Framework, Rails, Express, Laravel, FastAPI). They replace each top-level
    /// member sent whole, so a changed nested object goes whole (the server's last version with
    /// the change applied), and a removed member goes as `null`.
    case json
    /// RFC 6902 operations, `application/json-patch+json`: ASP.NET Core, Kubernetes, Spring.
    case jsonPatch

    /// The `Content-Type` the body goes out with.
    public var mediaType: String {
        switch self {
        case .mergePatch: "application/merge-patch+json"
        case .json: "application/json"
        case .jsonPatch: "application/json-patch+json"
        }
    }

    /// The body for the merge patch `patch` in this format. `base`, the server's last version of
    /// the object when known, lets a JSON Patch change nested objects key by key and remove only
    /// keys that exist.
    public func body(for patch: JSON, base: JSON?) -> JSON {
        switch self {
        case .mergePatch: return patch
        case .jsonPatch: return .array(Self.operations(patch, base: base, path: ""))
        case .json:
            guard case .object(let changes) = patch else { return patch }
            let known = base?.objectValue
            var body = changes
            for (key, value) in changes where value.objectValue != nil {
                let current = known?[key].flatMap { $0.objectValue != nil ? $0 : nil } ?? .object([:])
                body[key] = current.applyingMergePatch(value)
            }
            return .object(body)
        }
    }

    /// The format to try after `error` answered a PATCH sent as `format`: nil unless it is a 415
    /// naming (in `Accept-Patch`) a format Depot speaks other than `format`, or a 415 without
    /// `Accept-Patch` to a merge patch (then `.json`).
    public static func negotiated(after error: DepotError, sentAs format: PatchFormat) -> PatchFormat? {
        guard error.status == 415 else { return nil }
        guard let accepted = error.responseHeaders["accept-patch"] else {
            return format == .mergePatch ? .json : nil
        }
        for item in accepted.split(separator: ",") {
            let mediaType = item.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            if let offered = allCases.first(where: { $0.mediaType == mediaType }), offered != format {
                return offered
            }
        }
        return nil
    }

    /// RFC 6902 operations for a merge patch, under the JSON pointer `path`.
    private static func operations(_ patch: JSON, base: JSON?, path: String) -> [JSON] {
        guard case .object(let changes) = patch else {
            // A merge patch that is not an object replaces the whole document.
            return [["op": "replace", "path": .string(path), "value": patch]]
        }
        let known = base?.objectValue
        var operations: [JSON] = []
        for key in changes.keys.sorted() {
            let value = changes[key] ?? .null
            let pointer =
                path + "/"
                + key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(
                    of: "/", with: "~1")
            let current = known?[key]
            switch value {
            case .null:
                // Removing a key that is not there is an error in JSON Patch: only when known there,
                // or when nothing is known.
                if known == nil || current != nil { operations.append(["op": "remove", "path": .string(pointer)]) }
            case .object where current?.objectValue != nil:
                operations += Self.operations(value, base: current, path: pointer)
            default:
                // `add` sets a member whether or not it exists; an object takes the merge patch's
                // meaning (its nulls are dropped).
                let stored = value.objectValue != nil ? JSON.object([:]).applyingMergePatch(value) : value
                operations.append(["op": "add", "path": .string(pointer), "value": stored])
            }
        }
        return operations
    }
}
