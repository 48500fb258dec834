import Depot
import SoakSupport
import Testing

// OutboxCrashTest seed 17395578631429455834, as the checker writes it: a queued delete and
// re-create flushed, the re-created entity deleted again while the delete is out, and the
// last delete's answer lost (the server goes away after applying it). The first delete's answer
// must leave the record deleted, as the app's last write left it: it made it `.created`, the
// re-create's answer `.updated`, and the last delete's answer then queued an update the app never
// made (refused 404: `PHANTOM`).
extension ModelCheckerRegressionTests {
    @Test("a queued delete answered after the re-create behind it was deleted again leaves the record deleted")
    func deleteAnsweredAfterRecreateDeletedAgain() async {
        let program = CheckProgram(
            seed: 17_395_578_631_429_455_834, shape: .with { $0.pageSize = 2 },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.offline),
                CheckStep(.delete(handle: 1), strategy: .localFirst),
                CheckStep(.recreate(handle: 1, value: "v3"), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.flush, strategy: .localFirst, fault: .secondGoesOffline, during: .delete(handle: 1)),
                CheckStep(.online),
                CheckStep(.readAll),
            ])
        await Self.expectHolds(program)
    }
}
