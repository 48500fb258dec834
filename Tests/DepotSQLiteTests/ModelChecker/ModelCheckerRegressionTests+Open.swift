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
}
