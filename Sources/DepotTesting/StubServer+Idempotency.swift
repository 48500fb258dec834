import Depot

extension StubServer {
    /// A 2xx answer to a resource write, kept under the request's `Idempotency-Key`.
    struct RememberedAnswer {
        /// The method of the request first answered.
        var method: String
        /// The path (percent-decoded, without the query) of the request first answered.
        var path: String
        /// The answer, replayed as is.
        var response: StubResponse
    }

    /// Every write applied to a resource's state, in apply order: one element per object written
    /// (a batch gives one per object). A 4xx, a replayed `Idempotency-Key` or a 422 for a reused
    /// key applies nothing and is not here; a PUT or PATCH that leaves the object as it was is.
    public var appliedWrites: [StubAppliedWrite] { state.withLock { $0.appliedWrites } }

    /// How many resource writes were answered from the idempotency memory instead of being applied.
    public var replayedWrites: Int { state.withLock { $0.replayedWrites } }

    /// Forgets ``appliedWrites`` and zeroes ``replayedWrites``; sequence numbers keep counting and
    /// remembered `Idempotency-Key` answers stay.
    public func clearAppliedWrites() {
        state.withLock { state in
            state.appliedWrites.removeAll()
            state.replayedWrites = 0
        }
    }

    /// The `Idempotency-Key`s whose first request a resource set with
    /// ``setConflictsWhileProcessing(_:for:)`` applied and has not answered yet.
    public var keysInProcessing: Set<String> { state.withLock { $0.keysInProcessing } }

    /// Makes resource `name` answer `409 Conflict` to a write whose `Idempotency-Key` names a
    /// request still being processed, as the IETF idempotency-key draft (and Stripe) say: a
    /// request is "being processed" from the moment it is applied until its answer, held back by
    /// ``StubFault/delay(_:)``, goes out (or would have, when the client went away meanwhile).
    /// Once answered, the key replays its answer as usual.
    ///
    /// ```swift
    /// server.setConflictsWhileProcessing(true, for: "notes")
    /// server.inject(.delay(.seconds(2)), pathPrefix: "/notes")   // a resend within 2 s gets 409
    /// ```
    ///
    /// - Parameters:
    ///   - conflicts: whether such a write is answered 409 (resources answer it normally by default).
    ///   - name: a resource declared with ``resource(_:idStyle:objects:)`` (a precondition).
    public func setConflictsWhileProcessing(_ conflicts: Bool, for name: String) {
        let key = StubResource.key(for: name)
        state.withLock { state in
            precondition(state.resources[key] != nil, "no resource \(name) on this stub server")
            state.resources[key]?.conflictsWhileProcessing = conflicts
        }
    }

    /// Holds the key of `request` as being processed when its resource answers 409 to keys in
    /// processing and `response` applied the write; returns the key held, or nil.
    static func startProcessing(_ request: RecordedRequest, _ response: StubResponse, state: inout State) -> String? {
        guard ["POST", "PUT", "PATCH", "DELETE"].contains(request.method),
            (200..<300).contains(response.status),
            let key = request.header("Idempotency-Key"),
            let name = request.path.split(separator: "/").first.map(String.init),
            state.resources[name]?.conflictsWhileProcessing == true
        else { return nil }
        state.keysInProcessing.insert(key)
        return key
    }

    /// Ends the processing of `key`: a resend now replays its answer.
    func finishProcessing(_ key: String) {
        _ = state.withLock { $0.keysInProcessing.remove(key) }
    }

    /// How many elements of ``appliedWrites`` carry `idempotencyKey` (a batch counts each object).
    public func appliedCount(idempotencyKey: String) -> Int {
        state.withLock { state in state.appliedWrites.count(where: { $0.idempotencyKey == idempotencyKey }) }
    }

    /// Answers `request` with resource `name`, object `id` (nil for the collection route), honouring
    /// `Idempotency-Key` on writes: a key seen before replays its remembered 2xx answer and applies
    /// nothing (422 when it came with another method or path); otherwise the write is applied and
    /// recorded, and a 2xx answer is remembered under its key. A resource set to ignore keys
    /// (``setIgnoresIdempotencyKeys(_:for:)``) applies every write and remembers nothing.
    static func answer(_ request: RecordedRequest, resource name: String, id: String?, state: inout State)
        -> StubResponse
    {
        let isWrite = ["POST", "PUT", "PATCH", "DELETE"].contains(request.method)
        let key = isWrite ? request.header("Idempotency-Key") : nil
        let honoursKeys = !(state.resources[name]?.ignoresIdempotencyKeys ?? false)
        if honoursKeys, let key, state.keysInProcessing.contains(key) {
            return .json(
                ["error": .string("a request with Idempotency-Key \(key) is still being processed")], status: 409)
        }
        if honoursKeys, let key, let remembered = state.rememberedAnswers[key] {
            guard remembered.method == request.method, remembered.path == request.path else {
                return .json(["error": .string("Idempotency-Key \(key) was used for another request")], status: 422)
            }
            state.replayedWrites += 1
            return remembered.response
        }
        guard state.resources[name] != nil else { preconditionFailure("no resource \(name)") }
        // Handled in place: a copy taken out of the dictionary would make the first write copy
        // every object of the resource (one O(n) copy per request).
        let outcome = state.resources[name]!.handle(request, id: id)
        for written in outcome.written {
            state.appliedSequence += 1
            state.appliedWrites.append(
                StubAppliedWrite(
                    method: request.method, resource: name, id: written, idempotencyKey: key,
                    sequence: state.appliedSequence))
        }
        if honoursKeys, let key, (200..<300).contains(outcome.response.status) {
            state.rememberedAnswers[key] = RememberedAnswer(
                method: request.method, path: request.path, response: outcome.response)
        }
        return outcome.response
    }
}
