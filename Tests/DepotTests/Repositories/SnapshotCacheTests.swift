import Depot
import Foundation
import Testing

@Suite struct SnapshotCacheTests {
    @Test("remembers the answer and its ETag per id; forget and removeAll drop them")
    func remembersAndForgets() {
        let cache = SnapshotCache(capacity: 10)
        cache.remember(["id": "1", "text": "a"], etag: "\"1-1\"", for: "1")
        cache.remember(["id": "2", "text": "b"], for: "2")
        #expect(cache.snapshot(for: "1") == SnapshotCache.Snapshot(json: ["id": "1", "text": "a"], etag: "\"1-1\""))
        #expect(cache.snapshot(for: "2")?.etag == nil)
        #expect(cache.snapshot(for: "3") == nil)
        cache.remember(["id": "1", "text": "c"], etag: "\"1-2\"", for: "1")
        #expect(cache.snapshot(for: "1")?.json == ["id": "1", "text": "c"], "remember replaces")
        #expect(cache.count == 2)
        #expect(cache.forget("1")?.etag == "\"1-2\"")
        #expect(cache.forget("1") == nil)
        #expect(cache.snapshot(for: "1") == nil && cache.count == 1)
        cache.removeAll()
        #expect(cache.count == 0 && cache.ids.isEmpty && cache.snapshot(for: "2") == nil)
        cache.remember("again", for: "4")
        #expect(cache.ids == ["4"], "usable after removeAll")
    }

    @Test("the least recently used entry goes first; reading or remembering an id makes it recent")
    func lruOrder() {
        let cache = SnapshotCache(capacity: 3)
        for id in ["a", "b", "c"] { cache.remember(.string(id), for: id) }
        #expect(cache.ids == ["c", "b", "a"])
        _ = cache.snapshot(for: "a")
        #expect(cache.ids == ["a", "c", "b"])
        #expect(cache.contains("b"), "contains does not touch the order")
        cache.remember("d", for: "d")
        #expect(cache.ids == ["d", "a", "c"], "b was least recently used")
        cache.remember("c2", for: "c")
        cache.remember("e", for: "e")
        #expect(cache.ids == ["e", "c", "d"], "a went; c was refreshed by remember")
        #expect(cache.snapshot(for: "c")?.json == "c2")
        cache.forget("c")
        cache.remember("f", for: "f")
        #expect(cache.ids == ["f", "e", "d"] && cache.count == 3)
    }

    @Test("never holds more than its capacity", arguments: [1, 2, 7, 1_000])
    func capacity(capacity: Int) {
        let cache = SnapshotCache(capacity: capacity)
        #expect(cache.capacity == capacity)
        for index in 0..<(capacity * 3 + 5) {
            cache.remember(.integer(Int64(index)), for: String(index))
            #expect(cache.count == min(index + 1, capacity))
        }
        let newest = capacity * 3 + 4
        #expect(cache.ids == (0..<capacity).map { String(newest - $0) })
        #expect(SnapshotCache().capacity == 1_000)
    }

    @Test("matches a plain list model over 20,000 random operations")
    func matchesModel() {
        var random = SplitMix64(seed: 42)
        let cache = SnapshotCache(capacity: 16)
        var model: [(id: String, json: JSON)] = []  // most recent first
        for step in 0..<20_000 {
            let id = String(Int.random(in: 0..<40, using: &random))
            switch Int.random(in: 0..<10, using: &random) {
            case 0...4:
                cache.remember(.integer(Int64(step)), for: id)
                model.removeAll { $0.id == id }
                model.insert((id, .integer(Int64(step))), at: 0)
                if model.count > 16 { model.removeLast() }
            case 5...7:
                let expected = model.firstIndex { $0.id == id }.map { model.remove(at: $0) }
                if let expected { model.insert(expected, at: 0) }
                #expect(cache.snapshot(for: id)?.json == expected?.json, "step \(step)")
            default:
                let expected = model.firstIndex { $0.id == id }.map { model.remove(at: $0) }
                #expect(cache.forget(id)?.json == expected?.json, "step \(step)")
            }
            if step % 97 == 0 { #expect(cache.ids == model.map(\.id), "step \(step)") }
        }
        #expect(cache.ids == model.map(\.id))
    }

    @Test("stays consistent under many concurrent tasks")
    func concurrentHammer() async {
        let cache = SnapshotCache(capacity: 64)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for step in 0..<2_000 {
                        let id = "\(task)-\(step % 50)"
                        switch step % 5 {
                        case 0, 1: cache.remember(.string(id), etag: "\"\(id)\"", for: id)
                        case 2: _ = cache.snapshot(for: "\((task + 1) % 16)-\(step % 50)")
                        case 3: _ = cache.count
                        default: cache.forget("\(task)-\((step + 7) % 50)")
                        }
                    }
                }
            }
        }
        let ids = cache.ids
        #expect(ids.count == cache.count)
        #expect(ids.count <= 64)
        #expect(Set(ids).count == ids.count, "no id twice in the list")
        for id in ids {
            #expect(cache.snapshot(for: id) == SnapshotCache.Snapshot(json: .string(id), etag: "\"\(id)\""))
        }
        for index in 0..<64 { cache.remember(.integer(Int64(index)), for: "final-\(index)") }
        #expect(cache.ids == (0..<64).reversed().map { "final-\($0)" }, "still a sound LRU list")
    }

    @Test(
        "weak ETags are told from strong ones, and only strong ones are offered for If-Match",
        arguments: [
            (#""abc""#, false), (#"W/"abc""#, true), (#"  W/"x""#, true), (#"w/"x""#, true), ("abc", false),
            (#""W/x""#, false),
        ])
    func weakAndStrong(etag: String, weak: Bool) {
        #expect(ETag.isWeak(etag) == weak)
        #expect(ETag.isStrong(etag) == !weak)
        #expect(SnapshotCache.Snapshot(json: nil, etag: etag).strongETag == (weak ? nil : etag))
    }

    @Test("an empty or missing ETag is neither sent nor strong")
    func emptyETag() {
        #expect(!ETag.isStrong("") && !ETag.isStrong("  "))
        #expect(SnapshotCache.Snapshot(json: nil).strongETag == nil)
    }
}
