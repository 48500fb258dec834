import Depot
import SoakSupport
import Testing

// The parallel ThreadSanitizer run of stop 57: the soak's seed 13 (`assignIDs,ignoreKeys,roads`)
// applied one create twice, with no answer lost and no attempt unanswered. Its sender's lease
// lapsed while its request was out (renewals starved on a loaded machine, the sender alive), and
// another road of the same process took the entry and sent it again. The checker drew it once
// its alphabet had the lapse (`leasesLapse`, checker seed 14627196651360443378, shrunk):
// `TWO SENDERS`, a second call of the key while the first was out.
extension ModelCheckerRegressionTests {
    @Test(
        "a flush while a remote-first patch is out, its lease lapsed, leaves the patch to its sender",
        arguments: [true, false])
    func lapsedLeaseOfOpenClaimIsNotTaken(sqlite: Bool) async {
        let program = CheckProgram(
            seed: 14_627_196_651_360_443_378,
            shape: .with { $0.sqlite = sqlite },
            steps: [
                CheckStep(.create(handle: 12, value: "v1")),
                CheckStep(.patch(handle: 12, value: "v2"), during: .both(.leasesLapse, .flush)),
                CheckStep(.update(handle: 12, value: "v3"), strategy: .localFirst),
                CheckStep(.delete(handle: 12), during: .both(.leasesLapse, .synchronize)),
            ])
        await Self.expectHolds(program)
    }
}
