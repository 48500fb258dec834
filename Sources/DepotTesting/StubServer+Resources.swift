import Depot

extension StubServer {
    /// Makes resource `name` assign its own ids, as servers with read-only ids do (Django REST
    /// Framework's integer primary keys): a POST (one object or an array) gets the next id whatever
    /// id its body names, so a client's temporary id (`"tmp-1"`) never reaches the server's
    /// objects. The batch endpoint and `PUT` are unchanged.
    ///
    /// ```swift
    /// server.resource("notes")
    /// server.assignIDs(startingAt: 42, for: "notes")   // POST {"id": "tmp-1", …} → 201 {"id": "42", …}
    /// ```
    ///
    /// - Parameters:
    ///   - first: the next id to give (skipping ids taken); nil keeps the resource's count.
    ///   - name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func assignIDs(startingAt first: Int? = nil, for name: String) {
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.assignsIDs = true
            if let first { state.resources[key]?.nextID = first }
        }
    }

    /// Makes resource `name` ignore `Idempotency-Key` on writes (or honour it again), as most
    /// servers do: a write sent twice under one key is applied twice, and nothing is replayed. The
    /// writes are still listed in ``appliedWrites`` with the key they carried, so a test can count
    /// how many times each key was applied.
    ///
    /// ```swift
    /// server.resource("notes")
    /// server.setIgnoresIdempotencyKeys(true, for: "notes")   // a resent POST creates a second note
    /// ```
    ///
    /// - Parameters:
    ///   - ignores: whether keys are ignored (resources honour them by default).
    ///   - name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func setIgnoresIdempotencyKeys(_ ignores: Bool, for name: String) {
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.ignoresIdempotencyKeys = ignores
        }
    }

    /// Sets how resource `name` answers its batch endpoint `POST /<name>/collection`: in the order
    /// sent (``StubBatchReply/exact``, the default), shuffled, or with one object missing.
    ///
    /// - Parameters:
    ///   - reply: the switches.
    ///   - name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func setBatchReply(_ reply: StubBatchReply, for name: String) {
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.batchReply = reply
        }
    }

    /// Caps the pages of resource `name`: at most `maximumSize` objects a page whatever `_limit`
    /// asks (nil for no cap), as servers with a largest page size do; with `hidingTotalCount`,
    /// pages come without `X-Total-Count`.
    ///
    /// - Parameters:
    ///   - maximumSize: the largest page, at least 1 (a precondition); nil for none.
    ///   - hidingTotalCount: whether `X-Total-Count` is left out.
    ///   - name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func setPaging(maximumSize: Int?, hidingTotalCount: Bool = false, for name: String) {
        precondition(maximumSize.map { $0 >= 1 } ?? true, "maximumSize must be at least 1")
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.maximumPageSize = maximumSize
            state.resources[key]?.hidesTotalCount = hidingTotalCount
        }
    }

    /// Makes the resource `name` track changes, as servers built for incremental sync do: every
    /// write stamps the object's `updated_at` with a counter, a delete leaves a tombstone
    /// `{"id": …, "deleted": true, "updated_at": …}`, and `GET /<name>?updated_after=N` answers
    /// the objects and tombstones stamped at N or later (inclusive), oldest change first, paged
    /// like the whole list when `_page` or `_limit` is given.
    ///
    /// - Parameter name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func trackChanges(for name: String) {
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.tracksChanges = true
            // Objects already there get their first stamps.
            if var resource = state.resources[key] {
                for index in resource.objects.indices {
                    resource.changeClock += 1
                    resource.stamp(at: index, resource.changeClock)
                }
                state.resources[key] = resource
            }
        }
    }

    /// Makes resource `name`'s PUT keep the members its body leaves out (or replace the object
    /// whole again, the default), as the PUT of many frameworks does: only the members the body
    /// names are set, `null` included, so a client that leaves a cleared member out of its body
    /// finds the old value still there.
    ///
    /// ```swift
    /// server.resource("notes", objects: [["id": "1", "text": "a", "author": "ann"]])
    /// server.setPutKeepsOmittedFields(true, for: "notes")   // PUT {"text": "b"} keeps "author": "ann"
    /// ```
    ///
    /// - Parameters:
    ///   - keeps: whether omitted members are kept.
    ///   - name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func setPutKeepsOmittedFields(_ keeps: Bool, for name: String) {
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.putKeepsOmittedFields = keeps
        }
    }

    /// Makes resource `name` answer a PUT or PATCH it applied with `204 No Content`, no body and
    /// no `ETag` (or with the object and its `ETag` again, the default), as many servers do. With
    /// ``trackChanges(for:)`` the write still stamps `updated_at`: the client does not see the
    /// stamp until it reads the object.
    ///
    /// - Parameters:
    ///   - empty: whether writes are answered `204` without a body or an `ETag`.
    ///   - name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func setAnswersWritesEmpty(_ empty: Bool, for name: String) {
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.answersWritesEmpty = empty
        }
    }

    /// Makes the resource `name` take PATCH bodies only in `formats` (in this order of
    /// preference); any other `Content-Type` answers 415, naming the formats in `Accept-Patch`
    /// when `advertising` (as servers that speak RFC 5789 do) and without it otherwise (as most
    /// frameworks do). By default a resource takes only `.mergePatch`, and advertises it.
    ///
    /// - Parameters:
    ///   - formats: the formats taken, at least one (a precondition).
    ///   - advertising: whether a 415 carries `Accept-Patch`.
    ///   - name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func setPatchFormats(_ formats: [PatchFormat], advertising: Bool = true, for name: String) {
        precondition(!formats.isEmpty, "a resource takes at least one PATCH format")
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.patchFormats = formats
            state.resources[key]?.advertisesPatchFormats = advertising
        }
    }

    /// The ETag the resource `name` gives the object `id` now (what a single-object answer
    /// carries in `ETag`), or nil when there is no such resource or object.
    public func etag(of id: String, in name: String) -> String? {
        state.withLock { state in
            guard let resource = state.resources[StubResource.key(for: name)], resource.position(of: id) != nil else {
                return nil
            }
            return resource.etag(of: id)
        }
    }
}
