import Depot
import SoakSupport
import Testing

extension ModelCheckerRegressionTests {
    /// A's entity (`viewer` A) edited while B's list copy (`viewer` B) is the record's snapshot:
    /// A's patch falls back to the store (its answer too slow), still pending when B reads the list.
    static func pendingPatchUnderOtherAccountsList(declaresServerKeys: Bool) -> CheckProgram {
        CheckProgram(
            seed: 1_884_313_443_169_145_599,
            shape: .with {
                $0.variesByCaller = true; $0.conflictsInFlight = true; $0.declaresServerKeys = declaresServerKeys
                $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 2, value: "v1")),
                CheckStep(.readV2(handle: 2)),
                CheckStep(.update(handle: 2, value: "v13")),
                CheckStep(.readAll, strategy: .cacheFirst, account: "B", fault: .slowAnswer),
                CheckStep(.patch(handle: 2, value: "v37")),
                CheckStep(.readAll, account: "B"),
            ])
    }

    @Test(
        "a pending patch never puts its declared server key (viewer) over another account's copy (issue 32 #1/#11, seed 1884313443169145599)"
    )
    func pendingPatchKeepsNoDeclaredViewer() async {
        await Self.expectHolds(Self.pendingPatchUnderOtherAccountsList(declaresServerKeys: true))
    }

    @Test(
        "an undeclared viewer in a pending patch is the app's own field: another account on the shared store sees the patch (by design)"
    )
    func pendingPatchOfUndeclaredViewerIsTheApps() async {
        await Self.expectHolds(Self.pendingPatchUnderOtherAccountsList(declaresServerKeys: false))
    }
}
