import Depot
import SoakSupport
import Testing

// The read-side personalities of issue 43, each in a short program of its own: a server that leaves
// out null keys (#2) and one that redirects detail GETs to another origin (#3).
extension ModelCheckerRegressionTests {
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
