import Depot
import SoakSupport
import Testing

// A remote-first delete and an update sent behind it, both refused 412 and taken back: the record
// is the server's copy again, with its ETag, so a later patch is conditional (it was removed, and
// the patch overwrote another client's change without If-Match).
extension ModelCheckerRegressionTests {
    @Test(
        "a refused delete and the refused update behind it leave the server's copy and its ETag (seed 9943564963757185786)"
    )
    func refusedDeleteAndUpdateKeepETag() async {
        let program = CheckProgram(
            seed: 9_943_564_963_757_185_786,
            shape: .with {
                $0.servesETags = true; $0.variesByCaller = true; $0.declaresServerKeys = true; $0.migrates = true
                $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(
                    .delete(handle: 1), strategy: .staleWhileRevalidate, account: "B",
                    during: .update(handle: 1, value: "w1-0")),
                CheckStep(.otherWrite(handle: 1, value: "o7")),
                CheckStep(.patch(handle: 1, value: "v30")),
            ])
        await Self.expectHolds(program)
    }
}
