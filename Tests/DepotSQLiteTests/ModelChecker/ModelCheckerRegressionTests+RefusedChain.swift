import Depot
import SoakSupport
import Testing

// Issue 33 #5 (CREATE REFUSED): the app's delete ends the chain of an entity's writes the server
// refused 404, whenever it is recorded; a create of the id after it is a new chain, sent.
extension ModelCheckerRegressionTests {
    @Test(
        "a local-first delete after an edit the server refused 404 succeeds, and a re-create of the id is sent (issue 33 #5)"
    )
    func deleteAfterRefusedEditThenRecreate() async {
        let program = CheckProgram(
            seed: 10_321_931_711_381_021_678, shape: .with { $0.pageSize = 2 },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.otherDelete(handle: 1)),
                CheckStep(.update(handle: 1, value: "v1"), strategy: .localFirst),
                CheckStep(.delete(handle: 1), strategy: .localFirst),
                CheckStep(.recreate(handle: 1, value: "v3")),
                CheckStep(.readAll),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a local-first delete and re-create made while a queued edit the server refuses 404 is out stay a delete and a create: the re-create is not refused with it (issue 33 #5)"
    )
    func deleteAndRecreateBehindRefusedEdit() async {
        let program = CheckProgram(
            seed: 10_321_931_711_381_021_678, shape: .with { $0.pageSize = 2 },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.otherDelete(handle: 1)),
                CheckStep(.offline),
                CheckStep(.update(handle: 1, value: "v1"), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(
                    .flush, strategy: .localFirst, during: .both(.delete(handle: 1), .recreate(handle: 1, value: "v2"))
                ),
                CheckStep(.readAll),
            ])
        await Self.expectHolds(program)
    }
}
