import Depot
import SoakSupport
import Testing

// Issue 44 #4 (PiccoloCRUD): lists come in `{"rows": […]}` pages of the server's size, naming no
// next page and no total. `Pagination.automatic` took the first page for the whole list, so a
// pull counted as complete (`NOT PAGED`) and, pruning, removed every stored entity past page 1
// (`PRUNED`, and a local readAll() then left them out: `MISSING`). Such an answer fails
// `.listNotPaged`: the pull is not complete and prunes nothing.
extension ModelCheckerRegressionTests {
    @Test("a pull of a list that names no end is not complete (seed 5622482515693385940)")
    func silentPagesPullNotComplete() async {
        let program = CheckProgram(
            seed: 5_622_482_515_693_385_940,
            shape: .with {
                $0.declaresServerKeys = true; $0.migrates = true; $0.silentPages = true; $0.pageSize = 2
            },
            steps: [
                CheckStep(.create(handle: 11, value: "v33")),
                CheckStep(.synchronize),
            ])
        await Self.expectHolds(program)
    }

    // Written by hand: three entities over pages of 2, the third pruned by a pull that took page 1.
    @Test("a pull of a list that names no end prunes no stored entity past its first page")
    func silentPagesPullPrunesNothing() async {
        let program = CheckProgram(
            seed: 0,
            shape: .with {
                $0.silentPages = true; $0.pageSize = 2
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v1")),
                CheckStep(.create(handle: 2, value: "v2")),
                CheckStep(.create(handle: 3, value: "v3")),
                CheckStep(.synchronize),
                CheckStep(.readAll, strategy: .localFirst),
            ])
        await Self.expectHolds(program)
    }
}
