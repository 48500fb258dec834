import Depot
import SoakSupport
import Testing

// ORPHAN: a remote-first write refused and taken back after a server copy was merged under it (a
// synchronize's page, an earlier entry's answer) was taken for "a later write" and left as it was,
// its entry gone: a change no road would ever send.
extension ModelCheckerRegressionTests {
    @Test(
        "a remote-first update refused 412 while a synchronize merged the server's copy under it is taken back (seed 4148929356726391484)"
    )
    func refusedUpdateAfterMergedPage() async {
        let program = CheckProgram(
            seed: 4_148_929_356_726_391_484,
            shape: .with {
                $0.servesETags = true; $0.declaresServerKeys = true; $0.pageSize = 2
            },
            steps: [
                CheckStep(.create(handle: 9, value: "v21")),
                CheckStep(.update(handle: 9, value: "v26")),
                CheckStep(.otherWrite(handle: 9, value: "o27")),
                CheckStep(.update(handle: 9, value: "v29"), during: .synchronize),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a remote-first update refused 404 after the queued create before it was delivered is taken back (seed 4376553858409789690)"
    )
    func refusedUpdateAfterDeliveredCreate() async {
        let program = CheckProgram(
            seed: 4_376_553_858_409_789_690, shape: .with { $0.pageSize = 4 },
            steps: [
                CheckStep(.offline),
                CheckStep(.create(handle: 7, value: "v18")),
                CheckStep(.online),
                CheckStep(.update(handle: 7, value: "v20"), during: .otherDelete(handle: 7)),
            ])
        await Self.expectHolds(program)
    }
}
