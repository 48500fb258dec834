import Foundation

/// The command line: `OutboxCrashTest [--rounds 20] [--writes 200] [--pull-rounds 5]
/// [--sigterm-rounds 3] [--seed S]` runs the parent. Its children: `--child --port P --db PATH
/// [--concurrency N]` forwards, `--pull-child --port P --db PATH` pulls, and `--service-child
/// --port P --db PATH` runs a forwarder in a `ServiceGroup` that SIGTERM stops.
struct Arguments: Sendable {
    /// Whether this process is a forwarding child.
    var isChild = false
    /// Whether this process is a pulling child (``PullChild``).
    var isPullChild = false
    /// Whether this process is a service child (``ServiceChild``).
    var isServiceChild = false
    /// How many SIGTERM rounds the parent runs after the pull rounds (``SigtermTest``).
    var sigtermRounds = 3
    /// How many pull-crash rounds the parent runs after the outbox rounds (``PullCrashTest``).
    var pullRounds = 5
    /// The child's stub server port.
    var port = 0
    /// The child's SQLite file.
    var database = ""
    /// The child's forwarder's `maximumConcurrency`.
    var concurrency = 1
    /// How many rounds the parent runs.
    var rounds = 20
    /// How many local writes the parent makes before each round's first child.
    var writes = 200
    /// The seed of the parent's writes and fault choices; random when not given.
    var seed = UInt64.random(in: 1...UInt64.max)

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``UsageError`` for an unknown option or a missing or malformed value.
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            switch option {
            case "--child": isChild = true
            case "--pull-child": isPullChild = true
            case "--service-child": isServiceChild = true
            case "--sigterm-rounds": sigtermRounds = try Self.number(option, rest.popFirst())
            case "--pull-rounds": pullRounds = try Self.number(option, rest.popFirst())
            case "--port": port = try Self.number(option, rest.popFirst())
            case "--db": database = try Self.value(option, rest.popFirst())
            case "--concurrency": concurrency = max(try Self.number(option, rest.popFirst()), 1)
            case "--rounds": rounds = try Self.number(option, rest.popFirst())
            case "--writes": writes = try Self.number(option, rest.popFirst())
            case "--seed":
                guard let seed = UInt64(try Self.value(option, rest.popFirst())) else {
                    throw UsageError(message: "--seed needs an unsigned 64-bit integer")
                }
                self.seed = seed
            default: throw UsageError(message: "unknown option \(option)")
            }
        }
        if isChild || isPullChild || isServiceChild, port <= 0 || database.isEmpty {
            throw UsageError(message: "--child, --pull-child and --service-child need --port and --db")
        }
        if rounds < 1 || writes < 1 { throw UsageError(message: "--rounds and --writes must be positive") }
    }

    /// The value after `option`.
    private static func value(_ option: String, _ value: String?) throws -> String {
        guard let value else { throw UsageError(message: "\(option) needs a value") }
        return value
    }

    /// The non-negative integer after `option`.
    private static func number(_ option: String, _ text: String?) throws -> Int {
        guard let number = Int(try value(option, text)), number >= 0 else {
            throw UsageError(message: "\(option) needs a non-negative integer")
        }
        return number
    }
}

/// A command line the test does not understand.
struct UsageError: Error, CustomStringConvertible {
    /// What is wrong.
    var message: String
    /// The message with the usage.
    var description: String {
        "\(message)\nusage: OutboxCrashTest [--rounds 20] [--writes 200] [--seed S]"
            + " | OutboxCrashTest --child --port P --db PATH [--concurrency N]"
    }
}
