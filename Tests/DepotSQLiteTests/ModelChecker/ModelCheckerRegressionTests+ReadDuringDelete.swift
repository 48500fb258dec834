import Depot
import SoakSupport
import Testing

// Checker seed 16235065503099766274 (a clean-clone CI run of stop 41), shrunk: a record read by
// two versions of the app (each keeps its own HTTP-cache entry), then a read held at the server
// while a remote-first delete goes through. The read's late answer is not stored (a delivery since
// its request left is newer), but a cache entry of the record was left behind for a record the
// store no longer holds (`CACHE`).
extension ModelCheckerRegressionTests {
    @Test("a read answered after a delete went through leaves no HTTP-cache entry of the deleted record")
    func readAnsweredAfterDeleteLeavesNoCacheEntry() async {
        let program = CheckProgram(
            seed: 16_235_065_503_099_766_274,
            shape: .with {
                $0.servesETags = true
                $0.cacheControl = "max-age=300"
                $0.pageSize = 3
            },
            steps: [
                CheckStep(.recreateJSON(handle: 3, value: "v9")),
                CheckStep(.readV2(handle: 3)),
                CheckStep(.read(handle: 3), during: .delete(handle: 3)),
            ])
        await Self.expectHolds(program)
    }
}
