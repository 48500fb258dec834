import Depot
import SoakSupport
import Testing

// Checker seed 4103746095884921410 (the first run that drew a server answering every fifth request
// 503 with `Retry-After: 30`), shrunk: two creates and two edits, then a remote-first read, the
// fifth request. The read's session has no interceptor, so it retries from its transport's
// callbacks, where the first pause was not bounded by the 800 ms timeout: it slept 30 s
// (`DEADLINE`, then `HANG` at the step's 20 s).
extension ModelCheckerRegressionTests {
    @Test("a read answered 503 with Retry-After: 30 does not wait past its timeout (seed 4103746095884921410)")
    func longRetryAfterEndsTheRead() async {
        let program = CheckProgram(
            seed: 4_103_746_095_884_921_410,
            shape: .with {
                $0.longRetryAfter = 30
                $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.create(handle: 2, value: "v1")),
                CheckStep(.patch(handle: 2, value: "v4")),
                CheckStep(.patch(handle: 2, value: "v5")),
                CheckStep(.read(handle: 2)),
            ])
        await Self.expectHolds(program)
    }
}
