import Depot
import SoakSupport
import Testing

// The read-side personalities of issue 43, each in a short program of its own: a server that leaves
// out null keys (#2) and one that redirects detail GETs to another origin (#3); and the id moves
// the store keeps (`MOVES`).
extension ModelCheckerRegressionTests {
    @Test("an id move goes with its entity: a create the server gave its own id, then deleted (issue 43, MOVES)")
    func idMoveGoesWithEntity() async {
        // The app chose the id ("tmp-3"): its move stays, by design; the store keeps nothing else.
        let program = CheckProgram(
            seed: 9_875_572_796_949_595_086,
            shape: .with {
                $0.assignsIDs = true
                $0.pageSize = 5
            },
            steps: [
                CheckStep(.create(handle: 3, value: "v9")),
                CheckStep(.delete(handle: 3)),
            ])
        await Self.expectHolds(program)
    }

    @Test("a list made offline (Depot makes its id), delivered and deleted leaves no id move (issue 43, MOVES)")
    func temporaryMoveGoesWithList() async {
        let program = CheckProgram(
            seed: 43_004,
            shape: .with {
                $0.childCollection = true
                $0.pageSize = 3
            },
            steps: [
                CheckStep(.offline),
                CheckStep(.child(.createList(list: 1)), strategy: .localFirst),
                CheckStep(.online),
                CheckStep(.child(.flush)),
                CheckStep(.child(.deleteList(list: 1)), strategy: .localFirst),
                CheckStep(.child(.flush)),
                CheckStep(.child(.deleteList(list: 1)), strategy: .remoteFirst),
            ])
        await Self.expectHolds(program)
    }

    @Test("a detail answer that leaves out a cleared key replaces the record whole (issue 43 #2)")
    func omittedKeyIsNotKept() async {
        let program = CheckProgram(
            seed: 43_002,
            shape: .with {
                $0.omitsNulls = true
                $0.pageSize = 3
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.read(handle: 1)),
                CheckStep(.otherWrite(handle: 1, value: "o2")),
                CheckStep(.read(handle: 1)),
                CheckStep(.reread(handle: 1), strategy: .cacheFirst),
            ])
        await Self.expectHolds(program)
    }

    @Test("no header that identifies the caller reaches the origin a detail GET is redirected to (issue 43 #3)")
    func redirectKeepsCredentials() async throws {
        let program = CheckProgram(
            seed: 43_003,
            shape: .with {
                $0.redirectsElsewhere = true
                $0.servesETags = true
                $0.pageSize = 3
            },
            steps: [
                CheckStep(.create(handle: 1, value: "v0")),
                CheckStep(.read(handle: 1)),
                CheckStep(.read(handle: 1), account: "B"),
                CheckStep(.reread(handle: 1), strategy: .cacheFirst),
                CheckStep(.readAll),
            ])
        let outcome = await CheckRunner.run(program)
        #expect(outcome.violations.isEmpty, "\(outcome.violations.map(\.description).joined(separator: "\n"))")
        // The reads went to the other origin (else `CREDENTIAL` judged nothing).
        let received = outcome.log.last.flatMap { $0.split(separator: " ").compactMap { Int($0) }.first }
        #expect((received ?? 0) > 0, "\(outcome.log.joined(separator: "\n"))")
    }
}
