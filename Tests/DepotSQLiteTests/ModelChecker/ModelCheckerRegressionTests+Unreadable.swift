import Depot
import SoakSupport
import Testing

extension ModelCheckerRegressionTests {
    @Test(
        "v2's offline read of a record v1 created answers from the stored snapshot, never .decoding (issue 32 #5, seed 9113874086902725485)"
    )
    func offlineV2ReadOfV1CreateUsesSnapshot() async {
        await Self.expectHolds(
            CheckProgram(
                seed: 9_113_874_086_902_725_485,
                shape: .with {
                    $0.refreshesTokens = true; $0.declaresServerKeys = true; $0.pageSize = 4
                },
                steps: [
                    CheckStep(.create(handle: 3, value: "v13")),
                    CheckStep(.expireToken(account: "A")),
                    CheckStep(.readQuery, fault: .secondGoesOffline),
                    CheckStep(.readV2(handle: 3)),
                ]))
    }
}
