import Foundation
import Testing

@testable import Depot

/// What the store keeps of one answer: its freshness counted as RFC 9111 says.
@Suite struct HTTPCacheEntryTests {
    let arrival = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Expires without a Date header counts from the answer's arrival (RFC 9111 §4.2.1)")
    func expiresWithoutDate() throws {
        // Given: an answer that expires 120 s after it arrived, and says nothing of its Date.
        let headers = CacheHeaders(fields: [(name: "Expires", value: "Fri, 15 Jan 2027 08:02:00 GMT")])

        // When: the store keeps it.
        let entry = try #require(HTTPCacheEntry(headers: headers, url: "/m/1", now: arrival, request: []))

        // Then: it is fresh for those 120 s, and stale after.
        #expect(entry.lifetime == 120)
        #expect(entry.isFresh(at: arrival.addingTimeInterval(60), defaultMaxAge: nil))
        #expect(!entry.isFresh(at: arrival.addingTimeInterval(121), defaultMaxAge: nil))
    }

    @Test("a 304 without Date renews an Expires lifetime from its own arrival")
    func refreshedExpires() throws {
        let first = CacheHeaders(fields: [(name: "Cache-Control", value: "max-age=10")])
        let entry = try #require(HTTPCacheEntry(headers: first, url: "/m/1", now: arrival, request: []))
        let later = arrival.addingTimeInterval(-120 + 600)
        let notModified = CacheHeaders(fields: [(name: "Expires", value: "Fri, 15 Jan 2027 08:02:00 GMT")])

        // A 304 that arrives 480 s after the Expires date: already expired, never negative.
        let renewed = entry.refreshed(by: notModified, now: later)
        #expect(renewed.lifetime == 0)
        #expect(!renewed.isFresh(at: later, defaultMaxAge: nil))
    }
}

extension HTTPCacheEntryTests {
    @Test("2^31: a clamped max-age and an Age of 2^31 round-trip through the stored entry")
    func hugeValuesRoundTrip() throws {
        // Given: an answer fresh "for ever" (max-age clamped to 2^31), and one 2^31 s old.
        let forever = CacheHeaders(fields: [
            (name: "Cache-Control", value: "max-age=99999999999999999999"), (name: "ETag", value: "\"e1\""),
        ])
        let old = CacheHeaders(fields: [(name: "Age", value: "2147483648"), (name: "ETag", value: "\"e2\"")])
        let fresh = try #require(HTTPCacheEntry(headers: forever, url: "/m/1", now: arrival, request: []))
        let aged = try #require(HTTPCacheEntry(headers: old, url: "/m/2", now: arrival, request: []))
        #expect(fresh.lifetime == 1 << 31 && aged.initialAge == 1 << 31)

        // When: each is stored and read back.
        let freshBack = try #require(HTTPCacheEntry(object: fresh.object))
        let agedBack = try #require(HTTPCacheEntry(object: aged.object))

        // Then: nothing is lost: the lifetime, the age, the validators.
        #expect(freshBack == fresh && agedBack == aged)
        #expect(freshBack.isFresh(at: arrival.addingTimeInterval(86_400 * 365), defaultMaxAge: nil))
        #expect(agedBack.etag == "\"e2\"")
    }
}
