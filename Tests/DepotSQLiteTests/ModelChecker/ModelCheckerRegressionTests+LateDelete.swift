import Depot
import SoakSupport
import Testing

// A remote-first delete answered only after a re-create of its id (sent meanwhile, behind it) was
// answered: the late delete answer must not take the re-created record's ETag away.
extension ModelCheckerRegressionTests {
    @Test(
        "a re-create sent while a remote-first delete of the id is out keeps its ETag: a later update is conditional (seed 4714428587257501882)"
    )
    func recreateDuringRemoteDeleteKeepsETag() async {
        let program = CheckProgram(
            seed: 4_714_428_587_257_501_882,
            shape: .with {
                $0.servesETags = true; $0.lowercaseIDs = true; $0.pageSize = 2
            },
            steps: [
                CheckStep(.flush, strategy: .staleWhileRevalidate, during: .recreate(handle: 1, value: "w3-0")),
                CheckStep(
                    .delete(handle: 1),
                    during: .both(.recreate(handle: 1, value: "w4-0"), .otherWrite(handle: 1, value: "p4-1"))),
                CheckStep(.update(handle: 1, value: "v5")),
            ])
        await Self.expectHolds(program)
    }
}
