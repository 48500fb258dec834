import Depot
import SoakSupport
import Testing

extension ModelCheckerRegressionTests {
    @Test("A's queued edit is held while B is signed in, and applied as A once A is back (issue 42 #11)")
    func heldWhileOtherAccountSignedIn() async {
        let program = CheckProgram(
            seed: 42_011,
            shape: .with {
                $0.refreshesTokens = true; $0.declaresAccounts = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v1")),
                CheckStep(.offline),
                CheckStep(.update(handle: 1, value: "v2"), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.readAll, account: "B"),
                CheckStep(.flush, account: "B"),
                CheckStep(.flush),
                CheckStep(.read(handle: 1)),
            ])
        await Self.expectHolds(program)
    }

    @Test("the app switches to B while A's flush waits on A's token refresh: no write of A is applied as B")
    func switchDuringRefresh() async {
        let program = CheckProgram(
            seed: 42_012,
            shape: .with {
                $0.refreshesTokens = true; $0.declaresAccounts = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.create(handle: 1, value: "v1"), strategy: .localFirst),
                CheckStep(.create(handle: 2, value: "v2"), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.expireToken(account: "A")),
                CheckStep(.flush, during: .signIn(account: "B")),
                CheckStep(.readAll, account: "B"),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "B's offline create, then A's delete of it: B's create goes as B, A's delete as A, neither held for ever (seed 12144229066751304314)"
    )
    func otherAccountsDeleteOfUnsentCreate() async {
        let program = CheckProgram(
            seed: 12_144_229_066_751_304_314,
            shape: .with {
                $0.refreshesTokens = true; $0.declaresAccounts = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.create(handle: 9, value: "v25"), account: "B"),
                CheckStep(.delete(handle: 9)),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a remote-first patch after its account signed out, offline, is refused .otherAccount and stores nothing (seed 13072247310569718933)"
    )
    func signedOutRemoteFirstPatchIsRefused() async {
        // After a logout the interceptor refuses a request made for the account with
        // `.otherAccount` before anything is sent, offline or not: a rule's fallback is for want
        // of the server, so the write is undone and the app told (the model once expected it
        // kept locally, as REFUSED OFFLINE).
        let program = CheckProgram(
            seed: 13_072_247_310_569_718_933,
            shape: .with {
                $0.refreshesTokens = true
                $0.migrates = true
                $0.declaresAccounts = true
                $0.pageSize = 4
            },
            steps: [
                CheckStep(.create(handle: 13, value: "v28")),
                CheckStep(.logout(account: "A")),
                CheckStep(.offline),
                CheckStep(.patch(handle: 13, value: "v34")),
            ])
        await Self.expectHolds(program)
    }
}
