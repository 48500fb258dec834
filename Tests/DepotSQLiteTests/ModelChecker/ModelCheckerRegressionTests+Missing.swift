import Depot
import SoakSupport
import Testing

extension ModelCheckerRegressionTests {
    @Test(
        "a remote-first create again of a deleted entity the server spelled in lower case is sent, not taken for the old entity's (MISSING, seed 6404026053034234247)"
    )
    func recreateUnderMovedSpellingIsSent() async {
        await Self.expectHolds(
            CheckProgram(
                seed: 6_404_026_053_034_234_247,
                shape: .with {
                    $0.lowercaseIDs = true; $0.declaresServerKeys = true; $0.pageSize = 5
                },
                steps: [
                    CheckStep(.create(handle: 1, value: "v0")),
                    CheckStep(.create(handle: 2, value: "v3")),
                    CheckStep(.update(handle: 1, value: "v10"), during: .delete(handle: 2)),
                    CheckStep(.recreate(handle: 2, value: "v20")),
                    CheckStep(.readAll),
                ]))
    }
}
