import Depot
import SoakSupport
import Testing

// Checker seed 4100260794596258464 (a clean-clone CI run of stop 42), shrunk: a read by version 2
// of the app stores i4 with its ETag; A's token expires; the next read (401, refreshed, sent
// again) and the read after it: the second went without If-None-Match (`FRESHNESS`).
extension ModelCheckerRegressionTests {
    @Test("a read answered after a token refresh keeps the record's validator for the next read")
    func readAfterRefreshKeepsValidator() async {
        let program = CheckProgram(
            seed: 4_100_260_794_596_258_464,
            shape: .with {
                $0.servesETags = true
                $0.refreshesTokens = true
                $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 3, value: "v9")),
                CheckStep(.delete(handle: 3), during: .create(handle: 4, value: "w15-0")),
                CheckStep(.readV2(handle: 4)),
                CheckStep(.expireToken(account: "A")),
                CheckStep(.reread(handle: 4)),
            ])
        await Self.expectHolds(program)
    }
}
