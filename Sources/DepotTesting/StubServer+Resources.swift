import Depot

extension StubServer {
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
