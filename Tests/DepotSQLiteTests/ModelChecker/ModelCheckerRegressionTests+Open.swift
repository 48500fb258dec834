import Depot
import SoakSupport
import Testing

// Cases of open issues (`scripts/check-known`): each is a known issue, and fails the day its bug
// is fixed, so the fix removes the `withKnownIssue` and the kind's line in the script.
extension ModelCheckerRegressionTests {
    @Test("an id move goes with its entity: a create the server gave its own id, then deleted (issue 43, MOVES)")
    func idMoveGoesWithEntity() async {
        let program = CheckProgram(
            seed: 9_875_572_796_949_595_086,
            shape: .with {
                $0.assignsIDs = true
                $0.pageSize = 5
            },
            steps: [
                CheckStep(.create(handle: 3, value: "v9")),
                CheckStep(.delete(handle: 3)),
            ])
        let outcome = await CheckRunner.run(program)
        withKnownIssue("issue 43: an id move stays after its entity is deleted") {
            #expect(
                outcome.violations.isEmpty, "\(outcome.violations.map(\.description).joined(separator: "\n"))")
        }
    }

    @Test(
        "a remote-first patch after its account signed out, offline, falls back to the store (REFUSED OFFLINE, seed 13072247310569718933)"
    )
    func signedOutRemoteFirstPatchFallsBack() async {
        // After a logout the interceptor refuses a request made for the account with
        // `.otherAccount` (its doc: "the outbox holds the write until its account signs in
        // again"), but `.otherAccount` does not warrant a rule's fallback, so the write is undone
        // and thrown where the model expects it kept locally. Not yet decided: Depot or model.
        let program = CheckProgram(
            seed: 13_072_247_310_569_718_933,
            shape: .with {
                $0.refreshesTokens = true
                $0.migrates = true
                $0.declaresAccounts = true
                $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 13, value: "v28")),
                CheckStep(.logout(account: "A")),
                CheckStep(.offline),
                CheckStep(.patch(handle: 13, value: "v34")),
            ])
        let outcome = await CheckRunner.run(program)
        withKnownIssue("a signed-out account's remote-first write is refused .otherAccount, not kept locally") {
            #expect(
                outcome.violations.isEmpty, "\(outcome.violations.map(\.description).joined(separator: "\n"))")
        }
    }
}
