import Depot
import SoakSupport
import Testing

/// Issue 32's shapes the model checker generates by itself (a migration's queued writes, the
/// cache's bound, huge freshness values, an unreadable row in a list), as regression cases.
extension ModelCheckerRegressionTests {
    @Test(
        "a v2 edit of an update v1 queued behind its create, left as written by the migration, goes out in one version's shape (issue 32 #13)",
        arguments: [false, true])
    func migratedQueuedCreateKeepsOneShape(migratesQueued: Bool) async {
        let program = CheckProgram(
            seed: 0,
            shape: .with {
                $0.migrates = true; $0.migratesQueued = migratesQueued; $0.pageSize = 3
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.create(handle: 1, value: "v1"), strategy: .localFirst),
                CheckStep(.update(handle: 1, value: "v2"), strategy: .localFirst),
                CheckStep(.migrate),
                CheckStep(.patch(handle: 1, value: "v3"), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.flush),
                CheckStep(.readAll),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "an answer stored with max-age past 2^31 is fresh, and one with Age 2^31 keeps its ETag (issue 32 #9)",
        arguments: [false, true])
    func hugeFreshnessValuesRoundTrip(hugeAge: Bool) async {
        let program = CheckProgram(
            seed: 0,
            shape: .with {
                $0.servesETags = true; $0.cacheControl = "max-age=99999999999999999999"; $0.hugeAge = hugeAge
                $0.pageSize = 3
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.reread(handle: 1), strategy: .cacheFirst),
                CheckStep(.reread(handle: 1)),
            ])
        await Self.expectHolds(program)
    }

    @Test("the HTTP cache stays within its bound and a deleted record's entry goes with it (issue 32 #8)")
    func cacheStaysBounded() async {
        let program = CheckProgram(
            seed: 0,
            shape: .with {
                $0.servesETags = true; $0.cacheControl = "max-age=300"; $0.tinyCache = true; $0.pageSize = 2
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")), CheckStep(.create(handle: 2, value: "v1")),
                CheckStep(.create(handle: 3, value: "v2")), CheckStep(.create(handle: 4, value: "v3")),
                CheckStep(.read(handle: 1)), CheckStep(.read(handle: 2)), CheckStep(.read(handle: 3)),
                CheckStep(.read(handle: 4)), CheckStep(.readAll), CheckStep(.readQuery),
                CheckStep(.otherDelete(handle: 4)), CheckStep(.delete(handle: 3)),
            ])
        await Self.expectHolds(program)
    }

    @Test("a remote filtered list with one unreadable row keeps the readable rows (issue 32 #10)")
    func filteredListKeepsReadableRows() async {
        let program = CheckProgram(
            seed: 0, shape: .with { $0.pageSize = 3 },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")), CheckStep(.create(handle: 2, value: "v1")),
                CheckStep(.otherCorrupt(handle: 1)), CheckStep(.readQuery), CheckStep(.readAll),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a row a pull quarantined under a server-assigned id is released when the app deletes it (seed 4395959781843967823)"
    )
    func quarantinedServerIDReleasedByDelete() async {
        let program = CheckProgram(
            seed: 4_395_959_781_843_967_823,
            shape: .with {
                $0.assignsIDs = true; $0.pageSize = 5
            },
            steps: [
                CheckStep(.create(handle: 8, value: "v15")),
                CheckStep(.otherCorrupt(handle: 8)),
                CheckStep(.synchronize),
                CheckStep(.otherWrite(handle: 8, value: "o19")),
                CheckStep(.read(handle: 8)),
                CheckStep(.delete(handle: 8)),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a row a remote readAll() quarantined goes when a full pull no longer lists its id (seed 17940443286338061499)"
    )
    func quarantinedRowPrunedWithItsID() async {
        let program = CheckProgram(
            seed: 17_940_443_286_338_061_499,
            shape: .with {
                $0.declaresServerKeys = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.create(handle: 3, value: "v14")),
                CheckStep(.otherCorrupt(handle: 3)),
                CheckStep(.update(handle: 1, value: "v18"), during: .readAll),
                CheckStep(.otherDelete(handle: 3)),
            ])
        await Self.expectHolds(program)
    }
}
