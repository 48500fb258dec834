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

    @Test(
        "B's cache-first patch folded into A's unsent offline edit is answered the server's copy for B, not the entity it sent (issue 43 #12, seed 10172365009147849341)"
    )
    func otherAccountsPatchAfterOfflineEdits() async {
        let program = CheckProgram(
            seed: 10_172_365_009_147_849_341,
            shape: .with {
                $0.variesByCaller = true; $0.refreshesTokens = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.create(handle: 3, value: "v8")),
                CheckStep(.create(handle: 8, value: "v22")),
                CheckStep(.expireToken(account: "A")),
                CheckStep(.read(handle: 8), fault: .secondGoesOffline),
                CheckStep(.update(handle: 3, value: "v35")),
                CheckStep(.patch(handle: 3, value: "v36")),
                CheckStep(.patch(handle: 3, value: "v39"), strategy: .cacheFirst, account: "B"),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a write's answer under a later pending write leaves no field of B's older copy standing as A's change (issue 43 #12, seed 13209846947150047740)"
    )
    func writeAnswerUnderPendingWriteDropsOtherAccountsField() async {
        let program = CheckProgram(
            seed: 13_209_846_947_150_047_740,
            shape: .with {
                $0.variesByCaller = true; $0.conflictsInFlight = true; $0.incremental = true; $0.migrates = true
                $0.migratesQueued = true; $0.pageSize = 2
            },
            steps: [
                CheckStep(.create(handle: 6, value: "v15"), fault: .slowAnswer),
                CheckStep(.readAll, account: "B", during: .update(handle: 7, value: "w16-0")),
                CheckStep(.update(handle: 6, value: "v17")),
                CheckStep(.readAll, strategy: .localFirst, account: "B"),
                CheckStep(.create(handle: 9, value: "v25"), strategy: .localFirst),
                CheckStep(.recreateJSON(handle: 9, value: "v29"), fault: .slowAnswer),
                CheckStep(.synchronize),
                CheckStep(.readAll),
                CheckStep(.restart),
            ])
        await Self.expectHolds(program)
    }
}
