import Depot
import SoakSupport
import Testing

// A write over a version an answer without an ETag left unknown reads the server's copy first; a
// copy another client changed since is a conflict Depot judges without sending the write. The
// conflict policy decided it as it decides a 412, and the checker judges it so.
extension ModelCheckerRegressionTests {
    @Test(
        "a local-first delete after another client's write, on a server answering edits 204 without an ETag, goes to the conflict policy (seed 17526487063684254988)"
    )
    func deleteAfterEmptyAnswersIsAConflict() async {
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
        await Self.expectHolds(program)
    }
}
