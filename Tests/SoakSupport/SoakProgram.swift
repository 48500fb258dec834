import Depot
import Foundation

/// A round's program, the same in a child process and in a unit test: the repositories, the
/// forwarders and the AutoSync its ``SoakModes`` call for (a `shortLease` round with one road
/// writes locally and leaves every send to its two forwarders), the seeded workload through them, then
/// every background road stopped (a stop that does not return within ``SoakRunner/hangLimit`` is
/// journalled `HANG …`).
public struct SoakProgram: Sendable {
    /// The round's shapes.
    public let modes: SoakModes
    /// The round's seed: workload, strategy, roads.
    public let seed: UInt64
    /// Operations to run.
    public let operations: Int

    /// A program for a round with `modes` and `seed`, running `operations` operations.
    public init(modes: SoakModes, seed: UInt64, operations: Int) {
        self.modes = modes
        self.seed = seed
        self.operations = operations
    }

    /// Runs the program against the server at `url`, storing in `storage`; `second` (a
    /// `shortLease` round) is a second storage object over the same file, with a forwarder of its
    /// own. Calls `journal` with each journal line.
    public func run(url: URL, storage: Storage, second: Storage?, journal: @escaping @Sendable (String) -> Void) async {
        let session = SoakSetup.session(url: url, timeout: SoakSetup.timeout(modes)) { key in
            journal("UNANSWERED \(key)")
        }
        let lease = modes.shortLease ? SoakSetup.shortLease : .seconds(5)
        let items: SoakItems
        var other: SoakItems?
        if modes.manyRoads {
            items = SoakItems(store: session, storage: storage, strategy: .localFirst, road: "localFirst")
            other = SoakItems(store: session, storage: storage, strategy: .remoteFirst, road: "remoteFirst")
        } else if modes.shortLease {
            items = SoakItems(store: session, storage: storage, strategy: SoakItems.queued)
        } else {
            items = SoakSetup.items(session: session, storage: storage, seed: seed)
        }
        var road = items
        road.road = "forwarder"
        let forwarder = SoakSetup.forwarder(road, lease: lease)
        let rival = second.map {
            SoakSetup.forwarder(
                SoakItems(store: session, storage: $0, strategy: items.strategy, road: "forwarder2"), lease: lease)
        }
        road.road = "autoSync"
        let sync = modes.manyRoads ? SoakSetup.autoSync(road, observing: forwarder) : nil
        forwarder.start()
        rival?.start()
        sync?.0.start()
        await SoakRunner(items: items, forwarder: forwarder, other: other, followsAssignedIDs: modes.assignsIDs).run(
            seed: seed, count: operations, journal: journal)
        if let (autoSync, executor) = sync {
            await Self.stop("autoSync.stop()", journal: journal) { await autoSync.stop() }
            await Self.stop("executor.shutdown()", journal: journal) { await executor.shutdown() }
        }
        await Self.stop("forwarder.stop()", journal: journal) { await forwarder.stop() }
        if let rival { await Self.stop("second forwarder.stop()", journal: journal) { await rival.stop() } }
    }

    /// Runs `stop`; journals `HANG end <what> …` when it does not return within the limit.
    static func stop(_ what: String, journal: @Sendable (String) -> Void, _ stop: @escaping @Sendable () async -> Void)
        async
    {
        if !(await SoakRunner.returns(within: SoakRunner.hangLimit, stop)) {
            journal("HANG end \(what) did not return within \(SoakRunner.hangLimit)")
        }
    }
}
