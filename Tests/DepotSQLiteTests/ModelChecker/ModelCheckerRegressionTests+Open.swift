import Depot
import SoakSupport
import Testing

/// Programs the checker drew on main (stop 50) whose bugs are still open: each is a known issue
/// naming its cause; the fix removes the `withKnownIssue` and the kind's line in
/// `scripts/check-known`. Intermittent: each reproduces alone every time, but its fault races a
/// timeout (a slow answer, a dropped network), and beside the whole suite in parallel it may not
/// (a clean-clone CI run saw two of them hold).
extension ModelCheckerRegressionTests {
    @Test(
        "OPEN: a remote-first recreate goes out while the delete before it is still queued, under the server's spelling of a UUID (seed 6155551688188788691)"
    )
    func recreatePastQueuedDeleteOfOtherSpelling() async {
        let program = CheckProgram(
            seed: 6_155_551_688_188_788_691,
            shape: .with {
                $0.conflictsInFlight = true; $0.lowercaseIDs = true; $0.pageSize = 5
            },
            steps: [
                CheckStep(.create(handle: 5, value: "v11")),
                CheckStep(.delete(handle: 5), fault: .slowAnswer),
                CheckStep(.recreate(handle: 5, value: "v29")),
            ])
        await withKnownIssue("new issue (stop 50): STATE, a synced record over a queued delete", isIntermittent: true) {
            await Self.expectHolds(program)
        }
    }

    @Test(
        "OPEN: a local-first delete after another client's write, on a server answering edits 204 without an ETag, is lost (seed 17526487063684254988)"
    )
    func deleteAfterEmptyAnswersLost() async {
        let program = CheckProgram(
            seed: 17_526_487_063_684_254_988,
            shape: .with {
                $0.servesETags = true; $0.declaresServerKeys = true; $0.answersWritesEmpty = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.create(handle: 3, value: "v4")),
                CheckStep(.patch(handle: 3, value: "v11")),
                CheckStep(.synchronize, during: .otherWrite(handle: 3, value: "p16-1")),
                CheckStep(.flush, strategy: .localFirst, during: .delete(handle: 3)),
            ])
        await withKnownIssue(
            "new issue (stop 50): LOST, a delete after 204 answers without an ETag", isIntermittent: true
        ) {
            await Self.expectHolds(program)
        }
    }
}
