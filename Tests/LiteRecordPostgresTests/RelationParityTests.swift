import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// The relation checks (ForeignKeyParityChecks, RelationParityChecks, EagerLoadingParityChecks)
// on each backend, and what only PostgreSQL can show: one scan of each table per eager load,
// through the foreign key's index.

@Suite struct SQLiteRelationParityTests {
    @Test func newTablesDeclareAndIndexTheirKeys() throws {
        try ForeignKeyParityChecks.newTablesDeclareAndIndexTheirKeys(SQLiteBackend.temporary())
    }
    @Test func danglingKeyIsAnError() throws {
        try ForeignKeyParityChecks.danglingKeyIsAnError(SQLiteBackend.temporary())
    }
    @Test func onDeleteActions() throws {
        try ForeignKeyParityChecks.onDeleteActions(SQLiteBackend.temporary())
    }
    @Test func refusedDeleteInATransactionKeepsNothing() throws {
        try ForeignKeyParityChecks.refusedDeleteInATransactionKeepsNothing(SQLiteBackend.temporary())
    }
    @Test func existingTableIsLeftAsItIs() throws {
        try ForeignKeyParityChecks.existingTableIsLeftAsItIs(SQLiteBackend.temporary())
    }
    @Test func modelsReferencingEachOther() throws {
        try ForeignKeyParityChecks.modelsReferencingEachOther(SQLiteBackend.temporary())
    }
    @Test func filterDifferential() throws {
        try RelationParityChecks.filterDifferential(SQLiteBackend.temporary())
    }
    @Test func filterOnAMissingRelatedTable() throws {
        try RelationParityChecks.filterOnAMissingRelatedTable(SQLiteBackend.temporary())
    }
    @Test func filterWithoutARelationIsAnError() throws {
        try RelationParityChecks.filterWithoutARelationIsAnError(SQLiteBackend.temporary())
    }
    @Test func eagerLoadingChinook() throws {
        try EagerLoadingParityChecks.chinook(SQLiteBackend.temporary())
    }
    @Test func eagerLoadingTextKeys() throws {
        try EagerLoadingParityChecks.textKeys(SQLiteBackend.temporary())
    }
    @Test func eagerLoadingErrors() throws { try EagerLoadingParityChecks.errors(SQLiteBackend.temporary()) }
    @Test func searchInsideIncludingIsRefused() throws {
        try EagerLoadingParityChecks.searchInsideIncludingIsRefused(SQLiteBackend.temporary())
    }
    @Test func nestedEagerLoading() throws {
        try EagerLoadingParityChecks.nestedTrees(SQLiteBackend.temporary())
    }
    @Test func nestedEagerLoadingIntoDecodables() throws {
        try EagerLoadingParityChecks.decodableTrees(SQLiteBackend.temporary())
    }
    @Test func nestedEagerLoadingStatementCounts() throws {
        try EagerLoadingParityChecks.nestedStatementCounts(SQLiteBackend.temporary())
    }
    @Test func nestedEagerLoadingFiltersAndErrors() throws {
        try EagerLoadingParityChecks.nestedFiltersAndErrors(SQLiteBackend.temporary())
    }
    @Test func uuidKeysInEverySpelling() throws {
        try RelationKeyParityChecks.differential(SQLiteBackend.temporary(), foreignSpellings: true)
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresRelationParityTests {
    @Test func newTablesDeclareAndIndexTheirKeys() throws {
        try ForeignKeyParityChecks.newTablesDeclareAndIndexTheirKeys(PostgresTestServer.backend())
    }
    @Test func danglingKeyIsAnError() throws {
        try ForeignKeyParityChecks.danglingKeyIsAnError(PostgresTestServer.backend())
    }
    @Test func onDeleteActions() throws {
        try ForeignKeyParityChecks.onDeleteActions(PostgresTestServer.backend())
    }
    @Test func refusedDeleteInATransactionKeepsNothing() throws {
        try ForeignKeyParityChecks.refusedDeleteInATransactionKeepsNothing(PostgresTestServer.backend())
    }
    @Test func existingTableIsLeftAsItIs() throws {
        try ForeignKeyParityChecks.existingTableIsLeftAsItIs(PostgresTestServer.backend())
    }
    @Test func modelsReferencingEachOther() throws {
        try ForeignKeyParityChecks.modelsReferencingEachOther(PostgresTestServer.backend())
    }
    @Test func filterDifferential() throws {
        try RelationParityChecks.filterDifferential(PostgresTestServer.backend())
    }
    @Test func filterOnAMissingRelatedTable() throws {
        try RelationParityChecks.filterOnAMissingRelatedTable(PostgresTestServer.backend())
    }
    @Test func filterWithoutARelationIsAnError() throws {
        try RelationParityChecks.filterWithoutARelationIsAnError(PostgresTestServer.backend())
    }
    @Test func eagerLoadingChinook() throws {
        try EagerLoadingParityChecks.chinook(PostgresTestServer.backend())
    }
    @Test func eagerLoadingTextKeys() throws {
        try EagerLoadingParityChecks.textKeys(PostgresTestServer.backend())
    }
    @Test func eagerLoadingErrors() throws {
        try EagerLoadingParityChecks.errors(PostgresTestServer.backend())
    }
    @Test func searchInsideIncludingIsRefused() throws {
        try EagerLoadingParityChecks.searchInsideIncludingIsRefused(PostgresTestServer.backend())
    }
    @Test func nestedEagerLoading() throws {
        try EagerLoadingParityChecks.nestedTrees(PostgresTestServer.backend())
    }
    @Test func nestedEagerLoadingIntoDecodables() throws {
        try EagerLoadingParityChecks.decodableTrees(PostgresTestServer.backend())
    }
    @Test func nestedEagerLoadingStatementCounts() throws {
        try EagerLoadingParityChecks.nestedStatementCounts(PostgresTestServer.backend())
    }
    @Test func nestedEagerLoadingFiltersAndErrors() throws {
        try EagerLoadingParityChecks.nestedFiltersAndErrors(PostgresTestServer.backend())
    }
    @Test func uuidKeys() throws {
        try RelationKeyParityChecks.differential(PostgresTestServer.backend(), foreignSpellings: false)
    }

    /// Whatever the number of roots, an eager load reads each table with one statement: with
    /// index scans turned off, PostgreSQL's statistics of the open transaction count one
    /// sequential scan of each table per load (one query per root would count one per root).
    /// That the related rows' statement uses the key's index is checked below with EXPLAIN.
    @Test func eagerLoadReadsEachTableOnce() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.transaction { tx in
            for index in 0..<100 {
                var author = RelAuthor(id: nil, name: "author \(index)")
                try tx.insert(&author)
                for year in 0..<3 {
                    var book = RelBook(
                        id: nil, authorID: try #require(author.id), title: "b", year: 1900 + year)
                    try tx.insert(&book)
                }
            }
        }
        func scans(_ tx: PostgresTransaction) throws -> [Int64] {
            try tx.fetchAll(
                Int64.self,
                sql: """
                    SELECT seq_scan FROM pg_stat_xact_user_tables
                    WHERE schemaname = current_schema() AND relname IN ('rel_authors', 'rel_books') ORDER BY relname
                    """)
        }
        for roots in [1, 20, 100] {
            let (before, after, loaded) = try pg.transaction { tx in
                try tx.execute(sql: "SET LOCAL enable_indexscan = off")
                try tx.execute(sql: "SET LOCAL enable_bitmapscan = off")
                let before = try scans(tx)
                let loaded = try tx.query(RelAuthor.self).order { $0.id.ascending }.limit(roots)
                    .including(all: RelBook.self).fetchAll()
                return (before, try scans(tx), loaded)
            }
            #expect(loaded.count == roots)
            #expect(Set(loaded.map(\.1.count)) == [3])
            #expect(before.count == 2)
            #expect(zip(after, before).map { $0 - $1 } == [1, 1], "\(roots) roots")
        }
    }

    /// The related rows' statement uses the foreign key's index (EXPLAIN of the statement
    /// shape the eager load runs: the keys as one bound array).
    @Test func relatedRowsStatementUsesTheKeyIndex() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.transaction { tx in
            for index in 0..<300 {
                var author = RelAuthor(id: nil, name: "author \(index)")
                try tx.insert(&author)
                for _ in 0..<10 {
                    var book = RelBook(id: nil, authorID: try #require(author.id), title: "b", year: 2000)
                    try tx.insert(&book)
                }
            }
        }
        try pg.execute(sql: "ANALYZE")
        let plan = try pg.fetchAll(
            String.self,
            sql: """
                EXPLAIN SELECT * FROM "rel_books" WHERE "authorID" = ANY(CAST(\("{\"1\",\"2\",\"3\"}") AS bigint[]))
                """
        ).joined(separator: "\n")
        #expect(plan.contains("rel_books_authorID_index"), "\(plan)")
    }

    /// A composite key's statement shape (the keys as one bound `jsonb` array of arrays) can
    /// use the key's index: with sequential scans discouraged, the plan reads the index.
    @Test func compositeKeyStatementUsesTheKeyIndex() throws {
        let pg = try PostgresTestServer.freshDatabase()
        _ = try ChinookData.make(on: PostgresBackend(context: pg))
        let keys = "[[1,2],[3,4]]"
        let plan = try pg.transaction { tx -> String in
            try tx.execute(sql: "SET LOCAL enable_seqscan = off")
            return try tx.fetchAll(
                String.self,
                sql: """
                    EXPLAIN SELECT * FROM "PlaylistNote" WHERE ("PlaylistId", "TrackId") IN (SELECT
                    CAST(value ->> 0 AS bigint), CAST(value ->> 1 AS bigint) FROM jsonb_array_elements(CAST(\(keys) AS jsonb)))
                    """
            ).joined(separator: "\n")
        }
        #expect(plan.contains("PlaylistNote_PlaylistId_TrackId_index"), "\(plan)")
    }

    /// The same loads give the same results on both backends, from the same rows.
    @Test func eagerLoadsAgreeBetweenBackends() throws {
        let sqlite = try SQLiteBackend.temporary()
        let pg = try PostgresTestServer.backend()
        _ = try ChinookData.make(on: sqlite)
        _ = try ChinookData.make(on: pg)
        func playlists(_ backend: some RelationTestBackend) throws -> [String] {
            try backend.fetchAll(
                RootShape<ChinookPlaylist>(order: { $0.playlistId.descending }, limit: 6),
                includingAll: ChinookTrack.self, through: ChinookPlaylistTrack.self
            ) { $0.order { $0.name.descending } }.map { "\($0.0.playlistId): \($0.1.map(\.name))" }
        }
        #expect(try playlists(pg) == playlists(sqlite))
        func albums(_ backend: some RelationTestBackend) throws -> [String] {
            try backend.fetchAll(
                RootShape<ChinookTrack>(condition: { $0.unitPrice > 1 }, order: { $0.trackId.ascending }),
                includingOne: ChinookAlbum.self, via: nil
            ) { $0 }.map { "\($0.0.trackId): \($0.1?.title ?? "-")" }
        }
        #expect(try albums(pg) == albums(sqlite))
    }
}
