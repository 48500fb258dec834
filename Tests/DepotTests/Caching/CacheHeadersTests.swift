import Foundation
import Testing

@testable import Depot

/// `CacheHeaders` reads RFC 9111 / RFC 5861 fields as a private cache should, and never traps.
@Suite struct CacheHeadersTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT.
    static let rfcDate = Date(timeIntervalSince1970: 784_111_777)

    static func headers(_ cacheControl: String...) -> CacheHeaders {
        CacheHeaders(fields: cacheControl.map { (name: "Cache-Control", value: $0) })
    }

    @Test("Flag directives are read without regard to case")
    func flags() {
        let headers = Self.headers("No-Store, NO-CACHE, must-revalidate, Private")
        #expect(headers.noStore && headers.noCache && headers.mustRevalidate && headers.isPrivate)
        #expect(!headers.isStorable)
        let none = Self.headers("public")
        #expect(!none.noStore && !none.noCache && !none.mustRevalidate && !none.isPrivate)
        #expect(none.maxAge == nil && none.staleWhileRevalidate == nil && none.staleIfError == nil)
    }

    @Test(
        "max-age, stale-while-revalidate and stale-if-error read token and quoted forms",
        arguments: [
            ("max-age=60", 60, nil, nil),
            ("MAX-AGE=60", 60, nil, nil),
            ("max-age=\"60\"", 60, nil, nil),
            ("max-age = 60", 60, nil, nil),
            ("max-age=0", 0, nil, nil),
            ("max-age=60, stale-while-revalidate=30, stale-if-error=86400", 60, 30, 86_400),
            ("stale-while-revalidate=\"5\"", nil, 5, nil),
            ("s-maxage=5", nil, nil, nil),
        ] as [(String, Int?, Int?, Int?)])
    func deltas(value: String, maxAge: Int?, swr: Int?, sie: Int?) {
        let headers = Self.headers(value)
        #expect(headers.maxAge == maxAge)
        #expect(headers.staleWhileRevalidate == swr)
        #expect(headers.staleIfError == sie)
    }

    @Test(
        "An invalid max-age is stale (0), a huge one 2^31",
        arguments: [
            ("max-age=-1", 0), ("max-age=abc", 0), ("max-age=1.5", 0), ("max-age=", 0), ("max-age", 0),
            ("max-age=\"\"", 0), ("max-age=+5", 0), ("max-age=99999999999999999999999999", 2_147_483_648),
            ("max-age=2147483648", 2_147_483_648), ("max-age=2147483647", 2_147_483_647),
        ])
    func invalidMaxAge(value: String, expected: Int) {
        #expect(Self.headers(value).maxAge == expected)
    }

    @Test("Duplicates keep the most restrictive value, across fields too")
    func duplicates() {
        let headers = Self.headers("max-age=60, max-age=10", "max-age=30, stale-if-error=5, stale-if-error=9")
        #expect(headers.maxAge == 10)
        #expect(headers.staleIfError == 5)
        #expect(Self.headers("max-age=60", "max-age=oops").maxAge == 0)
    }

    @Test("Quoted arguments may hold commas and escapes; field names of no-cache and private still count")
    func quoted() {
        let headers = Self.headers(#"no-cache="Set-Cookie, X-A", private="a\"b, c", max-age=7"#)
        #expect(headers.noCache && headers.isPrivate)
        #expect(headers.maxAge == 7)
    }

    @Test("A nameless directive is skipped; a name with a malformed argument counts, its delta-seconds stale")
    func malformed() {
        #expect(Self.headers("=5, max-age=7").maxAge == 7)
        #expect(Self.headers("max-age=5 junk, no-store").maxAge == 0)
        #expect(Self.headers("max-age=5 junk, no-store").noStore)
        #expect(Self.headers("no-store junk").noStore)
        // An unbalanced quote swallows the rest of its field only.
        let unbalanced = Self.headers(#"private="abc, no-store"#, "max-age=3")
        #expect(!unbalanced.noStore && unbalanced.isPrivate)
        #expect(unbalanced.maxAge == 3)
        #expect(Self.headers(#"max-age="3"#).maxAge == 0)
        #expect(Self.headers(",,, ,max-age=4,,").maxAge == 4)
    }

    @Test("A Cache-Control beyond the bounds makes the answer no-store and no-cache")
    func overflow() {
        let many = (0..<65).map { "x\($0)" }.joined(separator: ", ")
        #expect(Self.headers(many).noStore)
        #expect(!Self.headers((0..<64).map { "x\($0)" }.joined(separator: ", ")).noStore)
        let long = Self.headers("max-age=5, " + String(repeating: " ", count: 9_000))
        #expect(long.noStore && long.noCache)
        #expect(long.freshnessLifetime(defaultMaxAge: 100) == 0)
        #expect(CacheHeaders(fields: Array(repeating: (name: "cache-control", value: "public"), count: 17)).noStore)
    }

    @Test("ETag and Last-Modified are kept verbatim, weak prefix included; unusable ones are dropped")
    func validators() {
        let headers = CacheHeaders(fields: [
            (name: "etag", value: #" W/"abc" "#), (name: "ETag", value: #""second""#),
            (name: "Last-Modified", value: "Sun, 06 Nov 1994 08:49:37 GMT"),
        ])
        #expect(headers.etag == #"W/"abc""#)
        #expect(headers.lastModified == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(headers.hasValidator)
        #expect(CacheHeaders(fields: [(name: "ETag", value: "\"a\r\nX-Evil: 1\"")]).etag == nil)
        #expect(CacheHeaders(fields: [(name: "ETag", value: "  ")]).etag == nil)
        #expect(CacheHeaders(fields: [(name: "ETag", value: String(repeating: "a", count: 9_000))]).etag == nil)
        #expect(CacheHeaders(fields: [(name: "Last-Modified", value: "yesterday")]).lastModified == nil)
        #expect(!CacheHeaders(fields: []).hasValidator)
    }

    @Test(
        "HTTP dates in the three forms of RFC 9110 §5.6.7",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "  Sun, 06 Nov 1994 08:49:37 GMT\t",
        ])
    func dates(text: String) {
        #expect(HTTPDate.parse(text, now: Self.rfcDate) == Self.rfcDate)
    }

    @Test(
        "Text that is no HTTP date is refused",
        arguments: [
            "", "0", "-1", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 29 Feb 1900 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun Nov   6 08:49:37 1994",
            "Sun Nov 06 08:49:37 94", "Funday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT GMT",
            "Sun, 06 Nov 1994 08:49:37", "Sun, ０６ Nov 1994 08:49:37 GMT",
        ])
    func notDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("Leap days, a leap second and dates before 1970 name the right instant")
    func dateEdges() {
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Wed, 31 Dec 1969 23:59:59 GMT") == Date(timeIntervalSince1970: -1))
        #expect(HTTPDate.parse("Wed, 31 Dec 2008 23:59:60 GMT") == Date(timeIntervalSince1970: 1_230_767_999))
    }

    @Test("An RFC 850 two-digit year more than 50 years ahead is in the past century")
    func twoDigitYears() {
        let now = HTTPDate.parse("Tue, 24 Nov 2026 00:00:00 GMT")!
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == Self.rfcDate)
        #expect(
            HTTPDate.parse("Monday, 06-Nov-75 08:49:37 GMT", now: now)
                == HTTPDate.parse("Wed, 06 Nov 2075 08:49:37 GMT"))
        #expect(
            HTTPDate.parse("Monday, 06-Nov-77 08:49:37 GMT", now: now)
                == HTTPDate.parse("Wed, 06 Nov 1977 08:49:37 GMT"))
    }

    @Test("Freshness: max-age wins over Expires, Expires − Date next, the default last")
    func lifetime() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        let expires = "Sun, 06 Nov 1994 08:59:37 GMT"
        let both = CacheHeaders(fields: [
            (name: "Date", value: date), (name: "Expires", value: expires), (name: "Cache-Control", value: "max-age=5"),
        ])
        #expect(both.freshnessLifetime(defaultMaxAge: 99) == 5)
        let expiresOnly = CacheHeaders(fields: [(name: "Date", value: date), (name: "Expires", value: expires)])
        #expect(expiresOnly.freshnessLifetime(defaultMaxAge: 99) == 600)
        #expect(CacheHeaders(fields: []).freshnessLifetime(defaultMaxAge: 99) == 99)
        #expect(CacheHeaders(fields: []).freshnessLifetime(defaultMaxAge: nil) == 0)
        #expect(CacheHeaders(fields: []).freshnessLifetime(defaultMaxAge: -5) == 0)
        #expect(Self.headers("private").freshnessLifetime(defaultMaxAge: 99) == 99)
    }

    @Test("Expires without Date counts from the arrival; an invalid or earlier Expires is already expired")
    func expires() {
        let expires = CacheHeaders(fields: [(name: "Expires", value: "Sun, 06 Nov 1994 08:50:37 GMT")])
        #expect(expires.freshnessLifetime(defaultMaxAge: 99, receivedAt: Self.rfcDate) == 60)
        #expect(expires.freshnessLifetime(defaultMaxAge: 99) == 0)
        let invalid = CacheHeaders(fields: [
            (name: "Date", value: "Sun, 06 Nov 1994 08:49:37 GMT"), (name: "Expires", value: "0"),
        ])
        #expect(invalid.expires == .distantPast)
        #expect(invalid.freshnessLifetime(defaultMaxAge: 99) == 0)
        let two = CacheHeaders(fields: [
            (name: "Expires", value: "Sun, 06 Nov 1994 09:49:37 GMT"),
            (name: "Expires", value: "Sun, 06 Nov 1994 08:50:37 GMT"),
        ])
        #expect(two.freshnessLifetime(defaultMaxAge: nil, receivedAt: Self.rfcDate) == 60)
    }

    @Test("no-cache and no-store override max-age: the most restrictive directive wins")
    func restrictive() {
        #expect(Self.headers("max-age=60, no-cache").freshnessLifetime(defaultMaxAge: nil) == 0)
        #expect(Self.headers("no-store", "max-age=60").freshnessLifetime(defaultMaxAge: 99) == 0)
        #expect(
            !Self.headers("max-age=60, no-cache").isFresh(storedAt: Self.rfcDate, now: Self.rfcDate, defaultMaxAge: 99))
    }

    @Test(
        "Age: first member of a list, delta-seconds only, else 0",
        arguments: [
            ("30", 30), (" 30 ", 30), ("30, 40", 30), ("-3", 0), ("abc", 0), ("", 0), ("1e3", 0),
            ("99999999999999999999", 2_147_483_648),
        ])
    func ageField(value: String, expected: Int) {
        #expect(CacheHeaders(fields: [(name: "Age", value: value)]).age == expected)
    }

    @Test("Current age is the larger of Age and arrival − Date, plus the time stored (RFC 9111 §4.2.3)")
    func currentAge() {
        let stored = Self.rfcDate.addingTimeInterval(10)
        let now = stored.addingTimeInterval(100)
        let fields: [(name: String, value: String)] = [(name: "Date", value: "Sun, 06 Nov 1994 08:49:37 GMT")]
        #expect(CacheHeaders(fields: fields).currentAge(storedAt: stored, now: now) == 110)
        let aged = CacheHeaders(fields: fields + [(name: "Age", value: "50")])
        #expect(aged.currentAge(storedAt: stored, now: now) == 150)
        #expect(aged.currentAge(storedAt: stored, now: now, requestedAt: stored.addingTimeInterval(-2)) == 152)
        // A clock that went back, or a Date in the future, never makes a negative age.
        #expect(CacheHeaders(fields: fields).currentAge(storedAt: Self.rfcDate, now: .distantPast) == 0)
        #expect(CacheHeaders(fields: []).currentAge(storedAt: .distantPast, now: .distantFuture) == 2_147_483_648)
    }

    @Test("Fresh while the lifetime exceeds the current age")
    func fresh() {
        let headers = Self.headers("max-age=60")
        #expect(headers.isFresh(storedAt: Self.rfcDate, now: Self.rfcDate.addingTimeInterval(59), defaultMaxAge: nil))
        #expect(!headers.isFresh(storedAt: Self.rfcDate, now: Self.rfcDate.addingTimeInterval(60), defaultMaxAge: nil))
        let aged = CacheHeaders(fields: [(name: "Cache-Control", value: "max-age=60"), (name: "Age", value: "60")])
        #expect(!aged.isFresh(storedAt: Self.rfcDate, now: Self.rfcDate, defaultMaxAge: nil))
        #expect(CacheHeaders(fields: []).isFresh(storedAt: Self.rfcDate, now: Self.rfcDate, defaultMaxAge: 1))
        #expect(!CacheHeaders(fields: []).isFresh(storedAt: Self.rfcDate, now: Self.rfcDate, defaultMaxAge: nil))
    }

    @Test("stale-while-revalidate and stale-if-error open windows that must-revalidate and no-cache close")
    func staleWindows() {
        let headers = Self.headers("max-age=60, stale-while-revalidate=30, stale-if-error=300")
        let at: (TimeInterval) -> Date = { Self.rfcDate.addingTimeInterval($0) }
        #expect(headers.mayServeStaleWhileRevalidating(storedAt: Self.rfcDate, now: at(89), defaultMaxAge: nil))
        #expect(!headers.mayServeStaleWhileRevalidating(storedAt: Self.rfcDate, now: at(90), defaultMaxAge: nil))
        #expect(headers.mayServeStaleIfError(storedAt: Self.rfcDate, now: at(359), defaultMaxAge: nil))
        #expect(!headers.mayServeStaleIfError(storedAt: Self.rfcDate, now: at(360), defaultMaxAge: nil))
        for closing in ["must-revalidate", "no-cache", "no-store"] {
            let closed = Self.headers("max-age=60, stale-while-revalidate=30, stale-if-error=300", closing)
            #expect(!closed.mayServeStaleWhileRevalidating(storedAt: Self.rfcDate, now: at(61), defaultMaxAge: nil))
            #expect(!closed.mayServeStaleIfError(storedAt: Self.rfcDate, now: at(61), defaultMaxAge: nil))
        }
        #expect(
            !Self.headers("max-age=60").mayServeStaleIfError(storedAt: Self.rfcDate, now: at(61), defaultMaxAge: nil))
    }

    @Test(
        "Vary: names lower-cased, each once, in order; * or an unreadable name varies on everything",
        arguments: [
            (["Accept, Authorization"], ["accept", "authorization"]),
            (["ACCEPT", " accept ,Accept-Language,,"], ["accept", "accept-language"]),
            (["Accept", "*"], ["*"]), (["Accept, *, Authorization"], ["*"]), (["Acc ept"], ["*"]),
            (["Accépt"], ["*"]), ([""], []), ([], []),
        ])
    func vary(values: [String], expected: [String]) {
        #expect(CacheHeaders(fields: values.map { (name: "Vary", value: $0) }).vary == expected)
    }

    @Test("More than 64 Vary names vary on everything")
    func varyBound() {
        let names = (0..<65).map { "x-\($0)" }
        #expect(CacheHeaders(fields: [(name: "vary", value: names.joined(separator: ","))]).vary == ["*"])
        #expect(CacheHeaders(fields: [(name: "vary", value: names.dropLast().joined(separator: ","))]).vary.count == 64)
    }

    @Test("A response's HTTPFields are read the same way")
    func fromResponse() {
        let response = NetworkResponse(status: 200, headers: ["Cache-Control": "max-age=9", "ETag": "\"e\""])
        #expect(response.cacheHeaders.maxAge == 9)
        #expect(response.cacheHeaders.etag == "\"e\"")
    }

    /// 5,000 rounds in the README suite; CI's fuzz step runs more (`DEPOT_FUZZ_ROUNDS`).
    @Test("5,000 hostile header sets (DEPOT_FUZZ_ROUNDS) never trap and stay within bounds")
    func fuzz() {
        var generator = SplitMix64(seed: 0xCAC4_E5EE)
        let rounds = ProcessInfo.processInfo.environment["DEPOT_FUZZ_ROUNDS"].flatMap { Int($0) } ?? 5_000
        let bound = CacheHeaders.maximumDeltaSeconds
        var failures: [String] = []
        for _ in 0..<max(rounds, 1) {
            let fields = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                (name: Self.fuzzNames.randomElement(using: &generator)!, value: Self.hostileValue(using: &generator))
            }
            let headers = CacheHeaders(fields: fields)
            let stored = Date(
                timeIntervalSince1970: Double(Int.random(in: -1_000_000_000...4_000_000_000, using: &generator)))
            let now = stored.addingTimeInterval(Double(Int.random(in: -100_000...100_000_000, using: &generator)))
            let lifetime = headers.freshnessLifetime(defaultMaxAge: Int.random(in: -5...Int.max, using: &generator))
            let age = headers.currentAge(storedAt: stored, now: now, requestedAt: .distantPast)
            _ = headers.isFresh(storedAt: stored, now: now, defaultMaxAge: Int.max)
            _ = headers.mayServeStaleIfError(storedAt: stored, now: now, defaultMaxAge: Int.max)
            _ = headers.mayServeStaleWhileRevalidating(storedAt: stored, now: now, defaultMaxAge: Int.max)
            let deltas = [
                headers.maxAge, headers.staleWhileRevalidate, headers.staleIfError, headers.age, lifetime, age,
            ]
            if !deltas.allSatisfy({ ($0 ?? 0) >= 0 && ($0 ?? 0) <= bound }) {
                failures.append("out of bounds \(deltas): \(fields)")
            }
            if headers.vary.count > CacheHeaders.maximumDirectives
                || (headers.vary.contains("*") && headers.vary.count != 1)
                || headers.vary.contains(where: { $0 != $0.lowercased() })
            {
                failures.append("vary \(headers.vary): \(fields)")
            }
            for validator in [headers.etag, headers.lastModified].compactMap({ $0 }) {
                if validator.utf8.count > CacheHeaders.maximumFieldLength
                    || validator.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
                {
                    failures.append("validator \(validator.debugDescription)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(5))")
    }

    @Test("10,000 commas, 10,000 quotes and 1 MiB of digits are read in bounded time")
    func hostileSizes() {
        let huge = [
            String(repeating: ",", count: 10_000), String(repeating: "\"", count: 10_000),
            "max-age=" + String(repeating: "9", count: 1 << 20), String(repeating: "no-store,", count: 10_000),
        ]
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for value in huge {
                let headers = CacheHeaders(fields: Self.fuzzNames.map { (name: $0, value: value) })
                #expect(headers.noStore, "a Cache-Control over the bounds is never kept")
                #expect(headers.age >= 0 && headers.age <= CacheHeaders.maximumDeltaSeconds)
            }
        }
        #expect(elapsed < .seconds(1))
    }

    static let fuzzNames = [
        "Cache-Control", "cache-control", "ETag", "Last-Modified", "Age", "Date", "Expires", "Vary", "X-Other",
    ]

    static let fuzzPieces = [
        "max-age", "s-maxage", "stale-while-revalidate", "stale-if-error", "no-store", "no-cache", "private",
        "must-revalidate", "=", ",", " ", "\t", "\"", "\\", "-", "+", "1", "0", "60", "-1", "2147483648",
        "99999999999999999999999999999", "1.5", "1e9", "é", "中", "👍🏽", "\u{0}", "\r\n", "\u{FEFF}", "*", "Accept",
        "W/", "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0000 00:00:00 GMT", ";", ":", "GMT",
    ]

    static func hostileValue(using generator: inout SplitMix64) -> String {
        switch Int.random(in: 0..<50, using: &generator) {
        case 0: return String(repeating: ",", count: Int.random(in: 0...10_000, using: &generator))
        case 1: return String(repeating: "max-age=1,", count: Int.random(in: 60...70, using: &generator))
        default:
            var text = ""
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                text += fuzzPieces.randomElement(using: &generator)!
            }
            return text
        }
    }
}
