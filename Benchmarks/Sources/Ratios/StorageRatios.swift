import Depot
import DepotSQLite
import Foundation
import GRDB

// 100,000 entities upserted in batches and 10,000 criteria queries, through SQLiteStorage and
// through raw GRDB (a Codable record in a table of columns, the usual GRDB way) in the same run.

struct Post: Codable, Identifiable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "posts"
    var id: String
    var author: String
    var likes: Int
    var text: String
}

@MainActor func storageRatios() async throws {
    let count = 100_000
    let batch = 1_000
    let queries = 10_000
    let posts = (0..<count).map {
        Post(id: String(format: "%06d", $0), author: "author\($0 % 500)", likes: $0 % 97, text: "post number \($0)")
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-ratios-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    print(
        "== Storage: \(count) entities upserted in batches of \(batch), then \(queries) criteria queries (author = ? ORDER BY id LIMIT 20)"
    )
    // Raw GRDB baseline.
    let pool = try DatabasePool(path: directory.appendingPathComponent("raw.sqlite").path)
    try await pool.write { db in
        try db.create(table: "posts") { table in
            table.primaryKey("id", .text)
            table.column("author", .text).notNull().indexed()
            table.column("likes", .integer).notNull()
            table.column("text", .text).notNull()
        }
    }
    let rawWrite = try await time {
        for start in stride(from: 0, to: count, by: batch) {
            let slice = Array(posts[start..<start + batch])
            try await pool.write { db in for post in slice { try post.upsert(db) } }
        }
    }
    let rawQuery = try await time {
        for index in 0..<queries {
            let author = "author\(index % 500)"
            let rows = try await pool.read { db in
                try Post.filter(Column("author") == author).order(Column("id")).limit(20).fetchAll(db)
            }
            precondition(rows.count == 20)
        }
    }

    // Depot: entities encoded once, straight to the stored text (what repositories store), and,
    // for comparison, the older path through parsed `StoredRecord`s, into a second file.
    let storage = try SQLiteStorage(
        path: directory.appendingPathComponent("depot.sqlite").path, indexes: ["posts": ["author"]])
    let depotWrite = try await time {
        for start in stride(from: 0, to: count, by: batch) {
            let records = try posts[start..<start + batch].map { post in
                try EncodedRecord(collection: "posts", entity: post, syncState: .synced, snapshot: .sameAsObject)
            }
            try await storage.upsert(encoded: records)
        }
    }
    let parsedStorage = try SQLiteStorage(
        path: directory.appendingPathComponent("depot-parsed.sqlite").path, indexes: ["posts": ["author"]])
    let parsedWrite = try await time {
        for start in stride(from: 0, to: count, by: batch) {
            let records = try posts[start..<start + batch].map { post in
                let object = try JSONMapping.object(post)
                return StoredRecord(
                    collection: "posts", id: post.id, object: object, syncState: .synced, snapshot: object)
            }
            try await parsedStorage.upsert(records)
        }
    }
    let depotQuery = try await time {
        for index in 0..<queries {
            let records = try await storage.fetch(
                collection: "posts", matching: Criteria(["author": .string("author\(index % 500)")], limit: 20)
            )
            let rows = try records.map { try JSONMapping.entity(Post.self, from: .object($0.object)) }
            precondition(rows.count == 20)
        }
    }
    row("raw GRDB upsert (baseline)", rawWrite.seconds, per: count, baseline: rawWrite.seconds)
    row("SQLiteStorage upsert(encoded:) (JSON + snapshot)", depotWrite.seconds, per: count, baseline: rawWrite.seconds)
    row("SQLiteStorage upsert of StoredRecords", parsedWrite.seconds, per: count, baseline: rawWrite.seconds)
    row("raw GRDB query (baseline)", rawQuery.seconds, per: queries, baseline: rawQuery.seconds)
    row("SQLiteStorage criteria query + entity mapping", depotQuery.seconds, per: queries, baseline: rawQuery.seconds)
}
