import Depot
import SoakSupport
import Testing

// Checker seed 2538550381506060341, shrunk: a create of a server-assigned id whose token refresh
// met a dropped network (queued under the temporary id "tmp-5", attempted), a delete and a patch
// queued behind it, then another account's remote-first update, folded into the unsent patch.
// The chain went first: the POST moved the entity to the server's s1001, DELETE s1001, then the
// folded edit's PUT s1001 was refused 404. Depot looked for that refusal under "tmp-5", found
// none, and answered the update as delivered (origin `.remote`), so the model took the entity
// to exist and the next patch's .notFound broke it (`NOT FOUND`). The update now fails
// .notFound, as the server said.
extension ModelCheckerRegressionTests {
    @Test(
        "a remote-first update folded behind a moved create and a delete is refused .notFound, not answered as delivered (seed 2538550381506060341)"
    )
    func foldedUpdateAfterMovedCreateRefused() async {
        let program = CheckProgram(
            seed: 2_538_550_381_506_060_341,
            shape: .with {
                $0.assignsIDs = true; $0.refreshesTokens = true; $0.declaresServerKeys = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.expireToken(account: "A")),
                CheckStep(.create(handle: 5, value: "v11"), fault: .secondGoesOffline),
                CheckStep(.delete(handle: 5)),
                CheckStep(.patch(handle: 5, value: "v18")),
                CheckStep(.update(handle: 5, value: "v23"), strategy: .staleWhileRevalidate, account: "B"),
                CheckStep(.patch(handle: 5, value: "v24")),
            ])
        await Self.expectHolds(program)
    }
}
