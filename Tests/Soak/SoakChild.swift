import Depot
import DepotSQLite
import Foundation
import SoakSupport

/// A round's program: opens the SQLite file (twice in a `shortLease` round), runs the
/// ``SoakProgram`` of its modes, journalling every operation to standard output; prints `DONE` at
/// the end.
enum SoakChild {
    /// Runs the workload; returns the exit status (0, or 4 when the store cannot be opened).
    static func run(_ options: SoakOptions) async -> Int32 {
        do {
            let modes = options.modes ?? SoakModes(seed: options.seed)
            let storage = try SQLiteStorage(path: options.database)
            let second = modes.shortLease ? try SQLiteStorage(path: options.database) : nil
            await SoakProgram(modes: modes, seed: options.seed, operations: options.operations).run(
                url: URL(string: "http://127.0.0.1:\(options.port)")!, storage: storage, second: second
            ) { say($0) }
            try second?.close()
            try storage.close()
            say("DONE")
            return 0
        } catch {
            complain("child: \(error)")
            return 4
        }
    }
}
