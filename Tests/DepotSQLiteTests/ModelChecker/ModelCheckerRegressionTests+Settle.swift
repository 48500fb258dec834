import Depot
import SoakSupport
import Testing

// Checker seed 5818354965929137098, shrunk: a synchronize() whose pull met an expired token and a
// refresh that failed (the network dropped), then another client's write. The settle's pulls came
// within the failed refresh's window (1 s), so each failed at once without a request, and the
// checker judged the store after "an incremental pull" that never happened (`CURSOR`). The model
// was wrong: the settle now tries a pull that got no page again, within its patience.
extension ModelCheckerRegressionTests {
    @Test(
        "the settle judges the store after a pull that happened, not one a failed refresh's window refused (seed 5818354965929137098)"
    )
    func settleWaitsOutFailedRefresh() async {
        let program = CheckProgram(
            seed: 5_818_354_965_929_137_098,
            shape: .with {
                $0.refreshesTokens = true; $0.incremental = true; $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 8, value: "v24")),
                CheckStep(.update(handle: 8, value: "v26"), during: .create(handle: 9, value: "w26-0")),
                CheckStep(.expireToken(account: "A")),
                CheckStep(.synchronize, fault: .secondGoesOffline),
                CheckStep(.otherWrite(handle: 9, value: "o38")),
            ])
        await Self.expectHolds(program)
    }
}

// Checker seed 15146925820189802918 (CI, stop 54), shrunk: a slow answer armed for the next
// write, then a read the store answered offline, so no write came. The armed fault outlived the
// round: the settle's first batch push met it (its answer held past the timeout, its key in
// flight), and every resend within the settle's patience was answered 409, so the create stayed
// queued (`STUCK`, `DIVERGED`). The model was wrong: a settling server has no faults; `quiet()`
// now disarms what a step armed for a request that never came.
extension ModelCheckerRegressionTests {
    @Test("a fault armed for a request that never came does not reach the settle (seed 15146925820189802918)")
    func settleMeetsNoArmedFault() async {
        let program = CheckProgram(
            seed: 15_146_925_820_189_802_918,
            shape: .with {
                $0.batchRoute = true; $0.conflictsInFlight = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.readAll, during: .create(handle: 2, value: "w7-0")),
                CheckStep(.patch(handle: 2, value: "v8"), account: "B"),
                CheckStep(.create(handle: 4, value: "v12")),
                CheckStep(.offline),
                CheckStep(.reread(handle: 2)),
                CheckStep(.create(handle: 10, value: "v31")),
                CheckStep(.synchronize, account: "B"),
                CheckStep(.read(handle: 4), fault: .slowAnswer),
            ])
        await Self.expectHolds(program)
    }
}
