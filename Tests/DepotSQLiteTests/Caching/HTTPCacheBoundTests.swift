import Depot
import DepotTesting
import Foundation
import Testing

/// A bounded cache: entries go with their records, and past the store's bound, oldest first.
@Suite struct HTTPCacheBoundTests {
    @Test(
        "the cache is bounded per store: past its entries, the least recently stored go",
        arguments: StorageKind.allCases)
    func boundedByEntries(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: six messages and a store that keeps three entries.
            fixture.server.resource(
                "messages", objects: (1...6).map { ["id": .string("\($0)"), "text": .string("m\($0)")] })
            fixture.server.servesValidators = true
            try await fixture.storage.setHTTPCacheLimit(HTTPCacheLimit(entries: 3))
            #expect(try await fixture.storage.httpCacheLimit().entries == 3)
            let messages = fixture.messages()

            // When: each is read, one second apart.
            for id in 1...6 {
                _ = try await messages.read("\(id)").value
                fixture.clock.advance(by: .seconds(1))
            }

            // Then: at most three entries are kept, the last read's among them; an evicted
            // record reads again with a plain GET, and still answers.
            let urls = try await fixture.cacheEntries().compactMap { $0.object["url"]?.stringValue }
            #expect(urls.count <= 3 && urls.contains("GET messages/6"), "\(urls)")
            #expect(try await messages.read("1").value.value.text == "m1")
            #expect(fixture.gets("/messages/1").last?.header("if-none-match") == nil)
        }
    }

    @Test("the cache is bounded by bytes too", arguments: [StorageKind.sqliteFile])
    func boundedByBytes(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            try await fixture.storage.setHTTPCacheLimit(HTTPCacheLimit(entries: 100, bytes: 600))
            let messages = fixture.messages()
            for id in 1...3 { _ = try await messages.read("\(id)").value }
            let sizes = try await fixture.cacheEntries().map { try JSON.object($0.object).serialized().count }
            #expect(sizes.count < 3 && sizes.reduce(0, +) <= 600)
        }
    }

    @Test(
        "entries go with their records: a record pruned by a pull drops its cache entry",
        arguments: StorageKind.allCases)
    func prunedRecordDropsEntry(kind: StorageKind) async throws {
        try await withHTTPCacheFixture(kind) { fixture in
            // Given: message 1 read with validators, then deleted on the server by another client.
            let messages = fixture.messages()
            _ = try await messages.read("1").value
            _ = try await fixture.session.request(.delete, "messages/1").value

            // When: a full pull prunes it.
            let report = try await messages.synchronize().value

            // Then: the record and its cache entry are gone.
            #expect(report.pruned == 1)
            let urls = try await fixture.cacheEntries().compactMap { $0.object["url"]?.stringValue }
            #expect(!urls.contains("GET messages/1"))
        }
    }
}
