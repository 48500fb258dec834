import Foundation
import SoakSupport

/// The command line: `Soak [--seconds 110] [--rounds N] [--ops 60] [--seed S] [--modes LIST]` runs
/// rounds until the time or the round count is used up, each in the modes drawn from its seed
/// unless `--modes` forces them (`classic`, or a comma-separated list of `assignIDs`,
/// `ignoreKeys`, `roads`, `shortLease`: see ``SoakModes``);
/// with `--keep-going` a failing round does not end the run (the exit status is still 1);
/// `Soak --child --port P --db PATH --seed S --ops N --modes LIST` runs one round's program;
/// `Soak --volume N` runs the volume check (``SoakVolume``).
struct SoakOptions: Sendable {
    /// Whether this process is a round's program.
    var isChild = false
    /// The stub server's port (child).
    var port = 0
    /// The SQLite file (child).
    var database = ""
    /// The seed: of the first round (parent), of this round (child).
    var seed = UInt64.random(in: 1...UInt64.max)
    /// Whether `--seed` was given (without `--seconds` or `--rounds`, the checker then replays
    /// that one program).
    var seedGiven = false
    /// Whether `--seconds` was given.
    var secondsGiven = false
    /// Operations per round.
    var operations = 60
    /// The time budget (parent), used when no round count is given.
    var seconds = 110
    /// A fixed round count (parent); nil to run until ``seconds`` are used.
    var rounds: Int?
    /// `--volume N`: run the volume check (``SoakVolume``) with N writes instead of rounds.
    var volume: Int?
    /// `--modes LIST`: the modes of every round (parent) or of this round (child); nil to draw
    /// each round's from its seed.
    var modes: SoakModes?
    /// `--keep-going`: after a round that breaks the model, print it and run on (the exit status
    /// still says it failed), so one run counts every failing round.
    var keepGoing = false
    /// `--check`: run the model checker (``SoakCheck``) instead of the soak's rounds.
    var check = false
    /// `--steps N`: steps per generated program of the model checker.
    var steps = 40
    /// `--shrink N`: the most programs run to shrink a failing one (0: print it unshrunk).
    var shrinkRuns = 150
    /// `--known LIST`: violation kinds of open issues, reported (each shrunk once) without failing the run.
    var known: Set<String> = []
    /// `--store postgres:URL`: the checker's SQLite rounds run on that PostgreSQL database instead
    /// (a schema per round; needs a build with the Postgres trait).
    var store: String?

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: a ``SoakUsageError`` for an unknown option or a missing or malformed value.
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            if option == "--child" || option == "--keep-going" || option == "--check" {
                if option == "--child" {
                    isChild = true
                } else if option == "--check" {
                    check = true
                } else {
                    keepGoing = true
                }
                continue
            }
            let value = rest.popFirst()
            switch option {
            case "--port": port = try Self.number(option, value)
            case "--db": database = try Self.text(option, value)
            case "--ops": operations = max(try Self.number(option, value), 1)
            case "--seconds":
                seconds = try Self.number(option, value)
                secondsGiven = true
            case "--rounds": rounds = max(try Self.number(option, value), 1)
            case "--volume": volume = max(try Self.number(option, value), 1)
            case "--steps": steps = max(try Self.number(option, value), 1)
            case "--shrink": shrinkRuns = try Self.number(option, value)
            case "--known":
                known = Set(
                    try Self.text(option, value).split(separator: ",").map {
                        $0.replacingOccurrences(of: "_", with: " ")
                    })
            case "--store":
                let text = try Self.text(option, value)
                guard text.hasPrefix("postgres:"), text.count > 9 else {
                    throw SoakUsageError(message: "--store takes postgres:<url>, not \(text)")
                }
                store = String(text.dropFirst(9))
            case "--modes":
                guard let modes = SoakModes(list: try Self.text(option, value)) else {
                    throw SoakUsageError(
                        message: "--modes takes classic or a list of " + SoakModes.names.joined(separator: ", "))
                }
                self.modes = modes
            case "--seed":
                guard let seed = UInt64(try Self.text(option, value)) else {
                    throw SoakUsageError(message: "--seed needs an unsigned 64-bit integer")
                }
                self.seed = seed
                seedGiven = true
            default: throw SoakUsageError(message: "unknown option \(option)")
            }
        }
        if isChild, port <= 0 || database.isEmpty { throw SoakUsageError(message: "--child needs --port and --db") }
    }

    private static func text(_ option: String, _ value: String?) throws -> String {
        guard let value else { throw SoakUsageError(message: "\(option) needs a value") }
        return value
    }

    private static func number(_ option: String, _ value: String?) throws -> Int {
        guard let number = Int(try text(option, value)), number >= 0 else {
            throw SoakUsageError(message: "\(option) needs a non-negative integer")
        }
        return number
    }
}

/// A command line the soak does not understand.
struct SoakUsageError: Error, CustomStringConvertible {
    /// What is wrong.
    var message: String
    /// The message with the usage.
    var description: String {
        "\(message)\nusage: Soak [--seconds 110] [--rounds N] [--ops 60] [--seed S] [--modes LIST] [--keep-going] | Soak --volume N"
            + " | Soak --check [--seconds S] [--seed S] [--steps 40] [--shrink 150] [--known KIND,…] [--keep-going] [--store postgres:URL]"
            + " | Soak --child --port P --db PATH --seed S --ops N --modes LIST\n"
            + "  --modes: classic, or a comma-separated list of " + SoakModes.names.joined(separator: ", ")
            + " (default: drawn per round from its seed)"
    }
}

/// Writes `line` to standard output at once (a killed child never flushes a buffer).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes `line` to standard error.
func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
