import Depot
import SoakSupport
import Testing

// Checker seed 3849120869382251548 (a clean-clone CI run of stop 41), shrunk: a remote-first
// delete out (the server applies it and holds the answer), a remote-first update of the same
// entity meanwhile (recorded over the delete's tombstone, its entry behind the delete's). The
// delete's answer kept the updated record with the snapshot and `ETag` of the copy it deleted;
// the update's 404 then took it back to that copy, `.synced`, and the app read a record the
// server no longer has (`STALE`).
extension ModelCheckerRegressionTests {
    @Test(
        "an update written over a delete that is then delivered, refused 404, leaves the entity deleted, not the deleted copy"
    )
    func updateOverDeliveredDeleteRefused() async {
        let program = CheckProgram(
            seed: 3_849_120_869_382_251_548, shape: .with { $0.pageSize = 4 },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.delete(handle: 1), during: .update(handle: 1, value: "w1-1")),
                CheckStep(.readAll, strategy: .localFirst),
            ])
        await Self.expectHolds(program)
    }
}
