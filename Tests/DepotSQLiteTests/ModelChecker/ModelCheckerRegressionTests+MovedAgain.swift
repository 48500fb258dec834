import Depot
import SoakSupport
import Testing

// Checker seed 496147987354561170, shrunk: a remote-first create moved tmp-2 to the server's
// s1001, another client deleted s1001, and an offline patch of it was queued. The synchronize
// pushed it through the batch route, whose upsert created it again as s1003 (`client_id` s1001),
// so the store moved s1001 to s1003: tmp-2 → s1001 → s1003, the entity held as s1003. The judge
// flagged the moves to s1001 as kept for an entity gone (`MOVES`), looking at s1001 alone. They
// are the chain a stale handle follows, and they go when s1003 goes
// (`forgetTemporaryMoves(collection:to:)` walks back through s1001): the judge now follows the
// recorded moves to an id the store holds (a checker bug, not Depot's).
extension ModelCheckerRegressionTests {
    @Test(
        "moves to an id the server replaced again (a batch upsert of an id another client deleted) stay with the entity held under the last (seed 496147987354561170)"
    )
    func movesFollowUpsertedEntity() async {
        let program = CheckProgram(
            seed: 496_147_987_354_561_170,
            shape: .with {
                $0.assignsIDs = true; $0.batchRoute = true; $0.refreshesTokens = true; $0.declaresServerKeys = true
                $0.migrates = true; $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 2, value: "v2")),
                CheckStep(.otherDelete(handle: 2)),
                CheckStep(.create(handle: 3, value: "v10")),
                CheckStep(.expireToken(account: "A")),
                CheckStep(.read(handle: 3), fault: .secondGoesOffline),
                CheckStep(.patch(handle: 2, value: "v21")),
                CheckStep(.signIn(account: "A")),
                CheckStep(.synchronize),
            ])
        await Self.expectHolds(program)
    }
}
