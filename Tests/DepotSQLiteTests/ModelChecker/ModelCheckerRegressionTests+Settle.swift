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
