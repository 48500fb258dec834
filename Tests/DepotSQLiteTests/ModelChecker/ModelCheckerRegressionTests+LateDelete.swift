import Depot
import SoakSupport
import Testing

// A remote-first delete answered only after a re-create of its id (sent meanwhile, behind it) was
// answered: the late delete answer must not take the re-created record's ETag away. A re-create
// under the app's spelling of an id the server spells otherwise goes behind its queued delete.
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

    @Test(
        "a remote-first recreate under the app's spelling waits behind the delete queued under the server's (seed 6155551688188788691)"
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
        await Self.expectHolds(program)
    }
}
