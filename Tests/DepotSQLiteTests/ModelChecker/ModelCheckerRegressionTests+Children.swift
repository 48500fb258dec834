import Depot
import SoakSupport
import Testing

extension ModelCheckerRegressionTests {
    @Test(
        "offline, a list (its Int id Depot's) and a child naming it: after the flush the child names the list's server id (issue 42 #13)",
        arguments: [true, false])
    func childOfListMadeOffline(sqlite: Bool) async {
        let program = CheckProgram(
            seed: 42_013,
            shape: .with {
                $0.sqlite = sqlite; $0.childCollection = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.child(.createList(list: 1)), strategy: .localFirst),
                CheckStep(.child(.createChild(child: 1, list: 1, title: "t2")), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.child(.flush)),
                // The app still holds the list's temporary id: a later child names it.
                CheckStep(.child(.createChild(child: 2, list: 1, title: "t5"))),
                CheckStep(.child(.moveChild(child: 1, list: 1, title: "t6")), strategy: .localFirst),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a child naming a list deleted before its create was sent is refused unsent, never sent with the temporary id")
    func childOfListDeletedUnsent() async {
        let program = CheckProgram(
            seed: 42_014,
            shape: .with {
                $0.childCollection = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.child(.createList(list: 1))),
                CheckStep(.child(.createChild(child: 1, list: 1, title: "t1"))),
                CheckStep(.offline),
                CheckStep(.child(.createList(list: 2)), strategy: .localFirst),
                CheckStep(.child(.moveChild(child: 1, list: 2, title: "t4")), strategy: .localFirst),
                CheckStep(.child(.createChild(child: 2, list: 2, title: "t5")), strategy: .localFirst),
                CheckStep(.child(.deleteList(list: 2)), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.child(.flush)),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a list deleted by the temporary id the app still holds after its create was delivered: DELETE names the server id"
    )
    func listDeletedByTemporaryID() async {
        let program = CheckProgram(
            seed: 42_015,
            shape: .with {
                $0.childCollection = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.child(.createList(list: 1)), strategy: .localFirst),
                CheckStep(.child(.deleteList(list: 1))),
                CheckStep(.child(.createChild(child: 1, list: 1, title: "t2"))),
                CheckStep(.child(.flush)),
            ])
        await Self.expectHolds(program)
    }

    @Test("a child queued for an offline list survives a restart and names the list's server id once delivered")
    func childOfOfflineListAcrossRestart() async {
        let program = CheckProgram(
            seed: 42_016,
            shape: .with {
                $0.childCollection = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.child(.createList(list: 1)), strategy: .localFirst),
                CheckStep(.child(.createChild(child: 1, list: 1, title: "t2")), strategy: .localFirst),
                CheckStep(.restart),
                CheckStep(.online),
                CheckStep(.child(.flush)),
                CheckStep(.child(.moveChild(child: 1, list: 1, title: "t6"))),
            ])
        await Self.expectHolds(program)
    }

    @Test("a child moved from one offline list to another before either was sent goes naming the second's server id")
    func childMovedBetweenOfflineLists() async {
        let program = CheckProgram(
            seed: 42_017,
            shape: .with {
                $0.childCollection = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.child(.createList(list: 1)), strategy: .localFirst),
                CheckStep(.child(.createList(list: 2)), strategy: .localFirst),
                CheckStep(.child(.createChild(child: 1, list: 1, title: "t3")), strategy: .localFirst),
                CheckStep(.child(.moveChild(child: 1, list: 2, title: "t4")), strategy: .localFirst),
                CheckStep(.child(.deleteList(list: 1)), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.child(.flush)),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a local-first delete of an offline create a migration left as written stays deleted once both went (seed 9996373187899212764)"
    )
    func deleteOfAsWrittenCreate() async {
        let program = CheckProgram(
            seed: 9_996_373_187_899_212_764,
            shape: .with {
                $0.migrates = true; $0.pageSize = 3
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.create(handle: 4, value: "m10")),
                CheckStep(.migrate),
                CheckStep(.online),
                CheckStep(.delete(handle: 4), strategy: .localFirst),
                CheckStep(.readAll, strategy: .localFirst),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a list made offline, deleted before it was sent, then deleted again: no DELETE carries its temporary id (seed 17771494958697204321)"
    )
    func listDeletedTwice() async {
        let program = CheckProgram(
            seed: 17_771_494_958_697_204_321,
            shape: .with {
                $0.childCollection = true; $0.pageSize = 4
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.child(.createList(list: 3)), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.child(.deleteList(list: 3)), strategy: .localFirst),
                CheckStep(.child(.deleteList(list: 3)), strategy: .localFirst),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a remote-first delete again of a list whose create an offline delete cancelled sends no temporary id (seed 5022556425765993486)"
    )
    func remoteFirstDeleteOfCancelledList() async {
        let program = CheckProgram(
            seed: 5_022_556_425_765_993_486,
            shape: .with {
                $0.childCollection = true; $0.pageSize = 4
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.child(.createList(list: 2)), strategy: .localFirst),
                CheckStep(.child(.deleteList(list: 2))),
                CheckStep(.online),
                CheckStep(.child(.deleteList(list: 2))),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a child's edit queued behind its create refused for naming a cancelled list waits for the app, as any refused chain (seed 5022556425765993486)"
    )
    func editBehindRefusedChild() async {
        let program = CheckProgram(
            seed: 5_022_556_425_765_993_486,
            shape: .with {
                $0.childCollection = true; $0.pageSize = 4
            },
            steps: [
                CheckStep(.child(.createList(list: 1)), strategy: .localFirst),
                CheckStep(.offline),
                CheckStep(.child(.synchronize(lists: true))),
                CheckStep(.child(.createList(list: 2)), strategy: .localFirst),
                CheckStep(.child(.createChild(child: 3, list: 2, title: "t35")), strategy: .localFirst),
                CheckStep(.child(.deleteList(list: 2))),
                CheckStep(.child(.synchronize(lists: false)), strategy: .localFirst),
                CheckStep(.child(.moveChild(child: 3, list: 1, title: "t57"))),
            ])
        await Self.expectHolds(program)
    }

    @Test(
        "a child whose batch may have reached the server is sent again by the settle's synchronize, never left pending (issue 42, seed 4363903128290345708)"
    )
    func childNeverLeftPending() async {
        // The children's synchronize, offline, sends c2 in a batch: its first attempt meets a
        // refused connect after a connection may have been open (maybe sent), so the batch stays
        // open and only the next synchronize sends it again, under its key. The settle used to
        // judge after forwarder flushes alone, which never claim an open batch's entries.
        let program = CheckProgram(
            seed: 4_363_903_128_290_345_708,
            shape: .with {
                $0.servesETags = true
                $0.summarizesLists = true
                $0.cacheControl = "max-age=300"
                $0.batchRoute = true
                $0.wholeSecondTimeout = true
                $0.declaresServerKeys = true
                $0.migrates = true
                $0.migratesQueued = true
                $0.redirectsElsewhere = true
                $0.childCollection = true
                $0.pageSize = 3
            },
            steps: [
                CheckStep(.child(.createList(list: 1)), fault: .drop),
                CheckStep(.offline),
                CheckStep(.child(.createChild(child: 1, list: 1, title: "t8")), strategy: .localFirst),
                CheckStep(.child(.createChild(child: 2, list: 1, title: "t10")), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.child(.createList(list: 4))),
                CheckStep(.offline),
                CheckStep(.create(handle: 7, value: "v23"), strategy: .staleWhileRevalidate),
                CheckStep(.create(handle: 8, value: "v24"), strategy: .localFirst),
                CheckStep(.child(.synchronize(lists: false)), strategy: .localFirst),
            ])
        await Self.expectHolds(program)
    }
}
