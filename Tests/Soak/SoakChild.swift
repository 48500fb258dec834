import Depot
import DepotSQLite
import Foundation
import SoakSupport

/// A round's program: opens the SQLite file, starts a forwarder and runs the seeded workload,
/// journalling every operation to standard output; prints `DONE` at the end.
enum SoakChild {
    /// Runs the workload; returns the exit status (0, or 4 when the store cannot be opened).
    static func run(_ options: SoakOptions) async -> Int32 {
        do {
            let storage = try SQLiteStorage(path: options.database)
            let session = SoakSetup.session(url: URL(string: "http://127.0.0.1:\(options.port)")!)
            let items = SoakSetup.items(session: session, storage: storage, seed: options.seed)
            let forwarder = SoakSetup.forwarder(items)
            forwarder.start()
            await SoakRunner(items: items, forwarder: forwarder).run(seed: options.seed, count: options.operations) {
                say($0)
            }
            await forwarder.stop()
            try storage.close()
            say("DONE")
            return 0
        } catch {
            complain("child: \(error)")
            return 4
        }
    }
}
