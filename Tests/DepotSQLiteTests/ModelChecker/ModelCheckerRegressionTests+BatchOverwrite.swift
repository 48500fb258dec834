import Depot
import SoakSupport
import Testing

// Seed 1038598393291812980, shrunk: the app holds e4's ETag, another client changes e4, the app
// patches it, and a synchronize() pushes the patch in a batch, which carries no If-Match: the
// other client's change was overwritten unseen (`OVERWRITE`). An entity whose version the app
// knows goes on its own, under If-Match, and the conflict policy decides.
extension ModelCheckerRegressionTests {
    @Test("a batch push never overwrites another client's change to an entity whose ETag the app holds")
    func batchPushKeepsPrecondition() async {
        let program = CheckProgram(
            seed: 1_038_598_393_291_812_980,
            shape: .with {
                $0.servesETags = true
                $0.batchRoute = true
                $0.refreshesTokens = true
                $0.declaresServerKeys = true
                $0.longRetryAfter = 86400
                $0.pageSize = 5
            },
            steps: [
                CheckStep(.create(handle: 4, value: "v5")),
                CheckStep(.synchronize),
                CheckStep(.create(handle: 6, value: "v16")),
                CheckStep(
                    .readV2(handle: 6),
                    during: .both(
                        .create(handle: 7, value: "w18-0"),
                        .both(.expireToken(account: "A"), .otherWrite(handle: 4, value: "p18-2")))),
                CheckStep(.create(handle: 8, value: "v19")),
                CheckStep(.flush),
                CheckStep(.create(handle: 9, value: "v23")),
                CheckStep(.signIn(account: "A")),
                CheckStep(.read(handle: 7)),
                CheckStep(.create(handle: 10, value: "v26")),
                CheckStep(.read(handle: 10)),
                CheckStep(.expireToken(account: "A")),
                CheckStep(
                    .create(handle: 11, value: "v28"), fault: .applyThenGoOffline,
                    during: .both(.signIn(account: "B"), .patch(handle: 4, value: "w28-1"))),
                CheckStep(.patch(handle: 11, value: "v34"), during: .readAll),
                CheckStep(.synchronize),
            ])
        await Self.expectHolds(program)
    }
}
