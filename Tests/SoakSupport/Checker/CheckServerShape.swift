import Foundation

/// The shape of a round's server and store, drawn from the round's seed.
public struct CheckServerShape: Sendable, Hashable, CustomStringConvertible {
    /// The server assigns ids (`s1001`), echoing the client's under `client_id`.
    public var assignsIDs = false
    /// Single-object answers carry an `ETag`; writes honour `If-Match` (412).
    public var servesETags = false
    /// Answers vary by caller: `viewer`, `Vary: Authorization`, a tag per caller.
    public var variesByCaller = false
    /// Lists hold summaries (no `body`).
    public var summarizesLists = false
    /// `Cache-Control` on every GET.
    public var cacheControl: String?
    /// The server has `POST /items/collection`, and the app pushes in batches.
    public var batchRoute = false
    /// A key whose first request is still in flight is answered `409`.
    public var conflictsInFlight = false
    /// Tokens expire (`Bearer A-2` after `A-1`); the app refreshes them with `POST /token`
    /// through an ``AuthenticationInterceptor``.
    public var refreshesTokens = false
    /// Client ids are UUIDs the app spells in uppercase and the server prints in lowercase.
    public var lowercaseIDs = false
    /// Lists take `updated_after=<version>` (inclusive, as `IncrementalPull` asks) and tell
    /// deletions with `deleted: true`; the app pulls incrementally.
    public var incremental = false
    /// The page size the app asks for.
    public var pageSize = 3
    /// The store is SQLite (else in memory).
    public var sqlite = true
    /// A second replica runs on the same SQLite file: its own `SQLiteStorage` and forwarder, as
    /// account A (steps of account `R`).
    public var replica = false
    /// Sessions are told apart by a `Cookie` (`session=A`) instead of `Authorization`; answers
    /// that vary by caller say `Vary: Cookie`.
    public var cookies = false
    /// The app's conflict policy is `.clientWins` (else `.serverWins`): a write refused 409 or
    /// 412 is sent again over the server's version, so it is judged as any other.
    public var clientWins = false
    /// The store's HTTP cache holds at most 3 entries (`setHTTPCacheLimit`): entries are evicted
    /// all the time, under records and lists that named them.
    public var tinyCache = false
    /// The client's timeout is a whole second (1 s, URLSession's own idle timeout) instead of 800 ms.
    public var wholeSecondTimeout = false
    /// The app declares the server's own keys (`body`, `viewer`, `updated_at`) in
    /// ``RepositoryConfiguration/serverOwnedKeys``: its writes leave them out, and a resend the
    /// server applied is told by the keys the app sends only.
    public var declaresServerKeys = false
    /// The app's writes carry a field of its schema's version, `tag` (v1) or `label` (v2), and the
    /// program migrates the store from v1 to v2 once (``CheckAction/migrate``, issue 32 #13).
    public var migrates = false
    /// The migration rewrites queued writes too (``Migration/QueuedWrites/migrate``; else
    /// ``Migration/QueuedWrites/asWritten``).
    public var migratesQueued = false
    /// Every GET answer says `Age: 2147483648` (2^31 seconds, issue 32 #9): no stored answer is
    /// fresh, but its validators must survive the store.
    public var hugeAge = false
    /// The app's own ids are spelled like Depot's temporary ones (`local-3`, issue 42 #4): a create
    /// must carry them as written, and the entity keep them.
    public var localSpelledIDs = false
    /// PUT and PATCH are answered `204` with no body and no `ETag` (issue 42 #9): the server's
    /// version moved, and only a later read tells the app what it holds. Drawn only with
    /// ``declaresServerKeys``.
    public var answersWritesEmpty = false
    /// Lists come in pages of ``pageSize`` whatever the request asks, each naming the next in a
    /// `Link` header as Django REST Framework and GitHub write it: form-encoded (`scope=all+items`),
    /// the last page's naming an empty page past the end (issue 43 #1, #11). The app pulls with
    /// ``Pagination/linkHeader``; a plain `readAll()` reads page 1. Never with ``incremental``.
    public var linkPaging = false
    /// Lists come in `{"rows": […]}` pages of ``pageSize`` whatever the request asks (the page
    /// `_page` names, else the first), naming no next page and no total (piccolo_api's
    /// PiccoloCRUD, issue 44 #4). The app pulls with ``Pagination/automatic`` and prunes: every
    /// pull must fail ``DepotError/Code/listNotPaged`` and prune nothing; a plain `readAll()` reads
    /// page 1. Never with ``incremental`` or ``linkPaging``.
    public var silentPages = false
    /// The server leaves out keys whose value is null: another client's write clears `body`, and
    /// its object's answers then have no `body` key at all, not `"body": null` (issue 43 #2). A
    /// detail answer replaces the record whole, so no read from the server shows a `body` the
    /// server dropped.
    public var omitsNulls = false
    /// Every fifth request to `/items` is answered `503` with `Retry-After` of this many seconds
    /// (30 or more, far past the client's timeout), and the app's retry policy honours
    /// `Retry-After` up to 30 s (issue 43 #9): no call may wait past its deadline. Nil: never.
    public var longRetryAfter: Int?
    /// Detail GETs (`/items/:id`) are answered `302` to another origin (a second server on another
    /// loopback port, serving the same data to a signed `as=<account>` query), while the app sends
    /// `Authorization` or `Cookie`, `Proxy-Authorization` and an `X-API-Key` it declares in
    /// ``RepositoryConfiguration/identifyingHeaders`` (issue 43 #3): none may reach that origin.
    public var redirectsElsewhere = false
    /// The token refresh (rounds with ``refreshesTokens``) logs in through the account's own
    /// session, the one whose interceptor it refreshes, from a promise chain (`.then { … }.value`),
    /// the login marked with ``AuthenticationInterceptor/marking(_:)`` (issue 43 #5: it waited on
    /// the refresh it belongs to, and every request of the session hung).
    public var chainedRefresh = false
    /// Each session declares the account it writes as (rounds with ``refreshesTokens``:
    /// ``AuthenticationInterceptor/init(token:account:failureWindow:refresh:)``), and the
    /// forwarder sends through the session of the account signed in now (the last step's): an
    /// entry made as A is held while B is signed in, and sent with A's credential once A is back
    /// (issue 42 #11). A write is applied on the server only under the account that made it
    /// (`WRONG ACCOUNT`).
    public var declaresAccounts = false
    /// The app also keeps lists whose `Int` ids the server assigns (`/lists`: 7, 8, …; Depot makes
    /// a temporary id for one created offline) and children (`/children`, ids the app's) that
    /// declare `listID` a reference to `lists` (issue 42 #13): program steps create lists, create
    /// and move children naming the lists the app holds, delete lists and flush them
    /// (``CheckChildAction``).
    public var childCollection = false

    /// The classic shape: client ids, no validators, SQLite.
    public init() {}

    /// The shape drawn from `random`.
    public init(using random: inout SeededGenerator) {
        assignsIDs = Bool.random(using: &random)
        servesETags = Bool.random(using: &random)
        variesByCaller = Int.random(in: 0..<3, using: &random) == 0
        summarizesLists = Bool.random(using: &random)
        cacheControl =
            [nil, nil, "max-age=300", "max-age=0", "max-age=99999999999999999999"][
                Int.random(in: 0..<5, using: &random)]
        batchRoute = Int.random(in: 0..<3, using: &random) == 0
        conflictsInFlight = Int.random(in: 0..<3, using: &random) == 0
        refreshesTokens = Int.random(in: 0..<3, using: &random) == 0
        lowercaseIDs = !assignsIDs && Int.random(in: 0..<3, using: &random) == 0
        incremental = Int.random(in: 0..<3, using: &random) == 0
        pageSize = Int.random(in: 2...5, using: &random)
        sqlite = Bool.random(using: &random)
        replica = sqlite && Int.random(in: 0..<4, using: &random) == 0
        cookies = !refreshesTokens && Int.random(in: 0..<4, using: &random) == 0
        wholeSecondTimeout = Int.random(in: 0..<3, using: &random) == 0
        clientWins = Int.random(in: 0..<3, using: &random) == 0
        tinyCache = cacheControl != nil && Int.random(in: 0..<3, using: &random) == 0
    }

    /// The client's timeout.
    public var timeout: Duration { wholeSecondTimeout ? .seconds(1) : CheckRunner.timeout }
    /// Whether a program drawn from `seed` declares the server's keys: drawn apart from the rest
    /// of the program, so the programs of seeds found before this option keep their steps.
    static func drawsServerKeys(seed: UInt64) -> Bool {
        var random = SeededGenerator(seed: seed ^ 0x5E4B_E20A_4B45_5953)
        return Int.random(in: 0..<3, using: &random) == 0
    }

    /// Whether programs drawn from seeds redirect detail GETs to another origin
    /// (``redirectsElsewhere``): yes. FoundationNetworking trapped when a task was cancelled (a
    /// timeout) while its redirect callback was pending ("Received callback for HTTP redirection,
    /// but we're not waiting for it", seen shrinking seed 1291468239464741720); Depot's URLSession
    /// delegate no longer answers that callback (`SessionDelegate`, `RedirectCancelTests`).
    static let drawsRedirects = true

    /// Draws the read-side personalities (``omitsNulls``, ``longRetryAfter``,
    /// ``redirectsElsewhere``, ``chainedRefresh``, ``declaresAccounts``) into `shape` from `seed`, each from a generator of its own apart
    /// from the rest of the program, so the programs of seeds found before them keep their steps.
    static func drawReadPersonalities(into shape: inout CheckServerShape, seed: UInt64) {
        var nulls = SeededGenerator(seed: seed ^ 0x4E55_4C4C_2D4B_4559)
        shape.omitsNulls = Int.random(in: 0..<4, using: &nulls) == 0
        var retry = SeededGenerator(seed: seed ^ 0x5245_5452_592D_4146)
        let retryAfter = [30, 120, 86_400][Int.random(in: 0..<3, using: &retry)]
        shape.longRetryAfter = Int.random(in: 0..<5, using: &retry) == 0 ? retryAfter : nil
        var redirects = SeededGenerator(seed: seed ^ 0x3330_322D_4F52_4947)
        shape.redirectsElsewhere = drawsRedirects && Int.random(in: 0..<4, using: &redirects) == 0
        var chained = SeededGenerator(seed: seed ^ 0x5052_4F4D_4953_4521)
        shape.chainedRefresh = shape.refreshesTokens && Bool.random(using: &chained)
        var accounts = SeededGenerator(seed: seed ^ 0x5748_4F53_452D_4143)
        shape.declaresAccounts = shape.refreshesTokens && Bool.random(using: &accounts)
    }

    /// The words of the shape, as a round's report prints them.
    public var description: String {
        var words: [String] = [sqlite ? "SQLite" : "in memory", assignsIDs ? "server ids" : "client ids"]
        if servesETags { words.append("ETags") }
        if variesByCaller { words.append("Vary: Authorization") }
        if summarizesLists { words.append("list summaries") }
        if let cacheControl { words.append("Cache-Control: \(cacheControl)") }
        if batchRoute { words.append("batch route") }
        if conflictsInFlight { words.append("409 to a key in flight") }
        if refreshesTokens { words.append("tokens expire") }
        if lowercaseIDs { words.append("lowercase UUIDs") }
        if incremental { words.append("incremental pulls") }
        if replica { words.append("a second replica") }
        if cookies { words.append("cookie sessions") }
        if wholeSecondTimeout { words.append("1 s timeout") }
        if clientWins { words.append("client wins") }
        if tinyCache { words.append("a 3-entry HTTP cache") }
        if declaresServerKeys { words.append("server keys declared") }
        if migrates { words.append(migratesQueued ? "a migration of queued writes" : "a migration as written") }
        if hugeAge { words.append("Age: 2^31") }
        if localSpelledIDs { words.append("app ids spelled local-…") }
        if answersWritesEmpty { words.append("writes answered 204") }
        if linkPaging { words.append("Link-header pages") }
        if silentPages { words.append("{\"rows\": …} pages naming no end") }
        if omitsNulls { words.append("null keys left out") }
        if let longRetryAfter { words.append("503 Retry-After: \(longRetryAfter) to every 5th request") }
        if redirectsElsewhere { words.append("detail GETs redirected to another origin") }
        if chainedRefresh { words.append("refresh from a promise chain") }
        if declaresAccounts { words.append("sessions declare their account") }
        if childCollection { words.append("lists with server Int ids and their children") }
        words.append("pages of \(pageSize)")
        return words.joined(separator: ", ")
    }
}

extension CheckServerShape {
    /// The classic shape changed by `change`: `.with { $0.servesETags = true }`.
    public static func with(_ change: (inout CheckServerShape) -> Void) -> CheckServerShape {
        var shape = CheckServerShape()
        change(&shape)
        return shape
    }
}
