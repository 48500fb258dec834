import Foundation

/// The command line: `FleetCrashTest [--store sqlite:PATH | --store postgres:URL] [--replicas 3]
/// [--writes 3000] [--entities 300] [--kills 12] [--lease-ms 2000] [--seed S]` runs the crash test;
/// `FleetCrashTest --throughput [--store …] [--writes 600] [--latency-ms 20]` measures forwarding
/// with 1, 2 and 3 replicas. A replica: `--child --store … --port P --finished PATH [--gate PATH]
/// [--role forward|batch] [--clock-offset SECONDS] [--lease-ms MS]`.
struct FleetArguments: Sendable {
    /// Whether this process is a forwarding replica (``FleetChild``).
    var isChild = false
    /// Whether to measure throughput instead of crashing replicas.
    var throughput = false
    /// The shared store; nil for an SQLite file in a temporary directory.
    var store: FleetStore?
    /// How many replicas forward at once.
    var replicas = 3
    /// How many local writes the parent queues (the throughput run: creates of distinct entities).
    var writes: Int?
    /// How many entities the writes go to.
    var entities = 300
    /// How many times a random replica is SIGKILLed and restarted.
    var kills = 12
    /// How long the stub server holds each answer, in milliseconds (the throughput run's default: 20).
    var latency: Int?
    /// The seed of the writes and kill moments; random when not given.
    var seed = UInt64.random(in: 1...UInt64.max)
    /// A replica's stub server port.
    var port = 0
    /// A replica stops once the outbox is empty and this file exists.
    var finished = ""
    /// A replica starts forwarding once this file exists, if given.
    var gate: String?
    /// A replica's role: `forward` (a forwarder's flushes) or `batch` (`synchronize()` of the
    /// client-id collection to its batch route, a forwarder for the other).
    var role = "forward"
    /// How far a replica's clock runs ahead of the system's, in seconds.
    var clockOffset = 0
    /// A replica's lease duration in milliseconds (a replica's nil: the forwarder's default, 60 s;
    /// the parent's nil: the crash test's 2 s).
    var leaseMilliseconds: Int?

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``FleetUsageError`` for an unknown option or a missing or malformed value.
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            switch option {
            case "--child": isChild = true
            case "--throughput": throughput = true
            case "--store": store = try FleetStore(parsing: try Self.value(option, rest.popFirst()))
            case "--replicas": replicas = try Self.number(option, rest.popFirst())
            case "--writes": writes = try Self.number(option, rest.popFirst())
            case "--entities": entities = try Self.number(option, rest.popFirst())
            case "--kills": kills = try Self.number(option, rest.popFirst())
            case "--latency-ms": latency = try Self.number(option, rest.popFirst())
            case "--port": port = try Self.number(option, rest.popFirst())
            case "--finished": finished = try Self.value(option, rest.popFirst())
            case "--gate": gate = try Self.value(option, rest.popFirst())
            case "--role":
                role = try Self.value(option, rest.popFirst())
                guard ["forward", "batch"].contains(role) else {
                    throw FleetUsageError(message: "--role takes forward or batch")
                }
            case "--clock-offset": clockOffset = try Self.number(option, rest.popFirst())
            case "--lease-ms": leaseMilliseconds = try Self.number(option, rest.popFirst())
            case "--seed":
                guard let seed = UInt64(try Self.value(option, rest.popFirst())) else {
                    throw FleetUsageError(message: "--seed needs an unsigned 64-bit integer")
                }
                self.seed = seed
            default: throw FleetUsageError(message: "unknown option \(option)")
            }
        }
        if isChild, port <= 0 || finished.isEmpty || store == nil {
            throw FleetUsageError(message: "--child needs --store, --port and --finished")
        }
        if replicas < 1 || entities < 2 || writes == 0 {
            throw FleetUsageError(message: "--replicas and --writes must be positive, --entities at least 2")
        }
    }

    /// The value after `option`.
    private static func value(_ option: String, _ value: String?) throws -> String {
        guard let value else { throw FleetUsageError(message: "\(option) needs a value") }
        return value
    }

    /// The non-negative integer after `option`.
    private static func number(_ option: String, _ text: String?) throws -> Int {
        guard let number = Int(try value(option, text)), number >= 0 else {
            throw FleetUsageError(message: "\(option) needs a non-negative integer")
        }
        return number
    }
}

/// A command line the test does not understand.
struct FleetUsageError: Error, CustomStringConvertible {
    /// What is wrong.
    var message: String
    /// The message with the usage.
    var description: String {
        "\(message)\nusage: FleetCrashTest [--store sqlite:PATH | --store postgres:URL] [--replicas 3]"
            + " [--writes 3000] [--entities 300] [--kills 12] [--seed S]"
            + " | FleetCrashTest --throughput [--store …] [--writes 600] [--latency-ms 20]"
    }
}

/// Writes `line` to standard output at once (print to a pipe is block-buffered, and a killed
/// child never flushes).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes `line` to standard error.
func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
