import Depot
import SoakSupport
import Testing

// The fleet crash test on PostgreSQL, seed 4651685230389486758, as the checker writes it: a queued
// update at the server, and while its answer is out the app deletes the entity, makes it again
// and deletes it again (the create and that delete fold into nothing behind the first delete).
// The update's answer found no record and stored itself `.synced`; the delete's answer then took
// it for a record written after the delete, and the entity stayed in the store for ever (`STALE`).
extension ModelCheckerRegressionTests {
    @Test("an update answered after its entity was deleted, made again and deleted again leaves no record")
    func updateAnsweredBehindDeleteRecreateDelete() async {
        let program = CheckProgram(
            seed: 4_651_685_230_389_486_758, shape: .with { $0.pageSize = 2 },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.offline),
                CheckStep(.update(handle: 1, value: "v2"), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(
                    .flush, strategy: .recordOnly,
                    during: .both(.delete(handle: 1), .both(.recreate(handle: 1, value: "w4-1"), .delete(handle: 1)))),
                CheckStep(.flush),
            ])
        await Self.expectHolds(program)
    }
}
