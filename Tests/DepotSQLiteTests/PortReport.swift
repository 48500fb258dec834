import Foundation

/// What the kernel holds on a loopback `port` (from `/proc/net/tcp`), and how many descriptors and
/// threads this process has: printed by a test that expected a refused connection and met a
/// timeout, so the next such failure says whether something listened on the closed port.
func portReport(_ port: Int?) -> String {
    guard let port else { return "no port" }
    let states = [
        "01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
        "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING",
    ]
    let hex = String(format: "%04X", port)
    var lines: [String] = []
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
        for row in text.split(separator: "\n").dropFirst() {
            let fields = row.split(separator: " ")
            guard fields.count > 3 else { continue }
            let local = fields[1].split(separator: ":").last.map(String.init)
            let remote = fields[2].split(separator: ":").last.map(String.init)
            guard local == hex || remote == hex else { continue }
            let state = states[String(fields[3])] ?? String(fields[3])
            lines.append("\(table.hasSuffix("6") ? "tcp6" : "tcp") \(fields[1]) -> \(fields[2]) \(state)")
        }
    }
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    return "port \(port): \(lines.isEmpty ? "no socket" : lines.joined(separator: "; ")); "
        + "this process: \(descriptors) descriptors, \(threads) threads"
}
