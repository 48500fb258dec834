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

// Checker seed 706268976432500008 (CI, stop 54), shrunk: lists in `{"rows": …}` pages and a
// batch route that answers a bare array. The batch's answer was read through the list envelope,
// failed `.decoding` though the server had applied it, and the batch stayed open: every resend
// got the same answer, and the create stayed queued (`STUCK`, `DIVERGED`). An answer that is the
// array itself is now read whole.
extension ModelCheckerRegressionTests {
    @Test("a batch answered with a bare array where lists come in an envelope is delivered (seed 706268976432500008)")
    func bareArrayBatchUnderEnvelope() async {
        let program = CheckProgram(
            seed: 706_268_976_432_500_008,
            shape: .with {
                $0.assignsIDs = true; $0.servesETags = true; $0.batchRoute = true; $0.sqlite = false
                $0.refreshesTokens = true; $0.wholeSecondTimeout = true; $0.clientWins = true
                $0.silentPages = true; $0.declaresAccounts = true; $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 2, value: "v2"), strategy: .cacheFirst),
                CheckStep(.expireToken(account: "A")),
                CheckStep(
                    .patch(handle: 2, value: "v12"), strategy: .staleWhileRevalidate, fault: .drop,
                    during: .both(.signIn(account: "B"), .expireToken(account: "A"))),
                CheckStep(.create(handle: 3, value: "v17"), strategy: .cacheFirst),
                CheckStep(.readV2(handle: 2), strategy: .cacheFirst, during: .otherWrite(handle: 2, value: "p18-0")),
                CheckStep(.synchronize, strategy: .cacheFirst),
            ])
        await Self.expectHolds(program)
    }
}

// Checker seed 15468018659569986649 (CI, stop 55, on PostgreSQL), shrunk: lists in `{"rows": …}`
// pages naming no end, with ETags. A remote readAll() read the first page and kept its validator;
// the pull that followed sent it, got 304, and called itself complete (`NOT PAGED`; in the whole
// program it also pruned: `PRUNED`).
extension ModelCheckerRegressionTests {
    @Test("a pull whose first page is answered 304 still needs the list to name its end (seed 15468018659569986649)")
    func silentPagesNotModifiedNotComplete() async {
        let program = CheckProgram(
            seed: 15_468_018_659_569_986_649,
            shape: .with {
                $0.servesETags = true; $0.declaresServerKeys = true; $0.silentPages = true; $0.pageSize = 5
            },
            steps: [
                CheckStep(.create(handle: 8, value: "v22")),
                CheckStep(.readAll),
                CheckStep(.synchronize),
            ])
        await Self.expectHolds(program)
    }
}
