extension CheckApp {
    /// `TWO SENDERS`: no call carrying an `Idempotency-Key` began while another call carrying
    /// the same key was under way. One sender sends an entry at a time and sends it again only
    /// once its attempt ended (a timeout, a dropped connection, a refusal to retry); a second
    /// call of the key while the first is out is another sender that took an entry whose sender
    /// is alive. `step` is nil for the final checks.
    func judgeSenders(step: Int?, _ outcome: inout CheckRunner.Outcome) {
        let found = calls.calls.withLock { calls -> [CheckViolation] in
            var found: [CheckViolation] = []
            var earlier: [String: [Int]] = [:]
            for index in calls.indices {
                guard let key = calls[index].key else { continue }
                defer { earlier[key, default: []].append(index) }
                let began = calls[index].began
                guard !calls[index].sendersJudged,
                    let out = earlier[key]?.first(where: { calls[$0].ended.map { $0 > began } ?? true })
                else { continue }
                calls[index].sendersJudged = true
                found.append(
                    CheckViolation(
                        kind: "TWO SENDERS", step: step,
                        message:
                            "\(calls[index].request) under key \(key) began while \(calls[out].request) under it was still out: a second sender took an entry whose sender is alive"
                    ))
            }
            return found
        }
        outcome.violations += found
    }
}
