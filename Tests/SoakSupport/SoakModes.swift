/// The shapes a soak round's server and program take, drawn from the round's seed (so
/// `--rounds 1 --seed S` replays them) or forced with `--modes`:
/// - `assignIDs`: the server ignores the id a POST sends and assigns its own (Django REST
///   Framework); the local record moves to the server's id, and the program follows it there.
/// - `ignoreKeys`: the server ignores `Idempotency-Key`, so a write whose answer was lost and is
///   sent again is applied again; each write may be applied once plus once per lost answer.
/// - `roads`: several roads at once: app calls through a remote-first and a local-first
///   repository over one storage, a started forwarder stopped and started at random points, and
///   an AutoSync running a SynchronizeAction.
/// - `shortLease`: leases of 1 s against answers delayed up to 2.5 s, and a second forwarder on a
///   second storage object over the same SQLite file: a lost lease shows as a duplicate send (the
///   server ignores keys in these rounds, so a duplicate send is a duplicate apply).
///
/// A round with none of them is `classic`: client-chosen ids, one road, a server that honours keys.
public struct SoakModes: Sendable, Hashable, CustomStringConvertible {
    /// The server assigns ids.
    public var assignsIDs = false
    /// The server ignores `Idempotency-Key`.
    public var ignoresKeys = false
    /// Several roads at once.
    public var manyRoads = false
    /// Short leases, slow answers, two forwarders.
    public var shortLease = false

    /// The names `--modes` takes, in the order they print.
    public static let names = ["assignIDs", "ignoreKeys", "roads", "shortLease"]

    /// The classic shape: none of the modes.
    public init() {}

    /// The modes of the round with `seed`: one round in four classic, the others each mode with
    /// even odds (at least one).
    public init(seed: UInt64) {
        var random = SeededGenerator(seed: seed ^ 0x0D0E_5EED)
        guard Int.random(in: 0..<4, using: &random) != 0 else { return }
        assignsIDs = Bool.random(using: &random)
        ignoresKeys = Bool.random(using: &random)
        manyRoads = Bool.random(using: &random)
        shortLease = Int.random(in: 0..<3, using: &random) == 0
        if !assignsIDs, !ignoresKeys, !manyRoads, !shortLease { manyRoads = true }
        if shortLease { ignoresKeys = true }
    }

    /// Modes named in `list`, comma-separated (`classic` for none); nil for an unknown name.
    public init?(list: String) {
        for name in list.split(separator: ",").map(String.init) {
            switch name {
            case "classic": break
            case "assignIDs": assignsIDs = true
            case "ignoreKeys": ignoresKeys = true
            case "roads": manyRoads = true
            case "shortLease":
                shortLease = true
                ignoresKeys = true
            default: return nil
            }
        }
    }

    /// The names of the modes on, in ``names`` order; empty for classic.
    public var active: [String] {
        zip(Self.names, [assignsIDs, ignoresKeys, manyRoads, shortLease]).filter(\.1).map(\.0)
    }

    /// `assignIDs,roads`, or `classic`: what `--modes` reads back.
    public var description: String { active.isEmpty ? "classic" : active.joined(separator: ",") }
}
