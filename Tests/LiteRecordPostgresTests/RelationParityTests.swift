import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// The relation checks (ForeignKeyParityChecks, RelationParityChecks, EagerLoadingParityChecks)
// on each backend, and what only PostgreSQL can show: one scan of each table per eager load,
// through the foreign key's index.

@Suite(.offCooperativePool) struct SQLiteRelationParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func newTablesDeclareAndIndexTheirKeys() throws {
        try backend.run { try ForeignKeyParityChecks.newTablesDeclareAndIndexTheirKeys($0, $1) }
    }
    @Test func danglingKeyIsAnError() throws {
        try backend.run { try ForeignKeyParityChecks.danglingKeyIsAnError($0, $1) }
    }
    @Test func onDeleteActions() throws {
        try backend.run { try ForeignKeyParityChecks.onDeleteActions($0, $1) }
    }
    @Test func refusedDeleteInATransactionKeepsNothing() throws {
        try backend.run { try ForeignKeyParityChecks.refusedDeleteInATransactionKeepsNothing($0, $1) }
    }
    @Test func existingTableIsLeftAsItIs() throws {
        try backend.run { try ForeignKeyParityChecks.existingTableIsLeftAsItIs($0, $1) }
    }
    @Test func modelsReferencingEachOther() throws {
        try backend.run { try ForeignKeyParityChecks.modelsReferencingEachOther($0, $1) }
    }
    @Test func filterDifferential() throws {
        try backend.run { try RelationParityChecks.filterDifferential($0, $1) }
    }
    @Test func filterOnAMissingRelatedTable() throws {
        try backend.run { try RelationParityChecks.filterOnAMissingRelatedTable($0, $1) }
    }
    @Test func filterWithoutARelationIsAnError() throws {
        try backend.run { try RelationParityChecks.filterWithoutARelationIsAnError($0, $1) }
    }
    @Test func eagerLoadingChinook() throws {
        try backend.run { try EagerLoadingParityChecks.chinook($0, $1) }
    }
    @Test func eagerLoadingTextKeys() throws {
        try backend.run { try EagerLoadingParityChecks.textKeys($0, $1) }
    }
    @Test func eagerLoadingErrors() throws { try backend.run { try EagerLoadingParityChecks.errors($0, $1) } }
    @Test func searchInsideIncludingIsRefused() throws {
        try backend.run { try EagerLoadingParityChecks.searchInsideIncludingIsRefused($0, $1) }
    }
    @Test func nestedEagerLoading() throws {
        try backend.run { try EagerLoadingParityChecks.nestedTrees($0, $1) }
    }
    @Test func nestedEagerLoadingIntoDecodables() throws {
        try backend.run { try EagerLoadingParityChecks.decodableTrees($0, $1) }
    }
    @Test func nestedEagerLoadingStatementCounts() throws {
        try backend.run { try EagerLoadingParityChecks.nestedStatementCounts($0, $1) }
    }
    @Test func nestedEagerLoadingFiltersAndErrors() throws {
        try backend.run { try EagerLoadingParityChecks.nestedFiltersAndErrors($0, $1) }
    }
    @Test func uuidKeysInEverySpelling() throws {
        try backend.run { try RelationKeyParityChecks.differential($0, $1, foreignSpellings: true) }
    }
}

@Suite(.offCooperativePool) struct SQLiteFileRelationParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func newTablesDeclareAndIndexTheirKeys() throws {
        try backend.run { try ForeignKeyParityChecks.newTablesDeclareAndIndexTheirKeys($0, $1) }
    }
    @Test func danglingKeyIsAnError() throws {
        try backend.run { try ForeignKeyParityChecks.danglingKeyIsAnError($0, $1) }
    }
    @Test func onDeleteActions() throws {
        try backend.run { try ForeignKeyParityChecks.onDeleteActions($0, $1) }
    }
    @Test func refusedDeleteInATransactionKeepsNothing() throws {
        try backend.run { try ForeignKeyParityChecks.refusedDeleteInATransactionKeepsNothing($0, $1) }
    }
    @Test func existingTableIsLeftAsItIs() throws {
        try backend.run { try ForeignKeyParityChecks.existingTableIsLeftAsItIs($0, $1) }
    }
    @Test func modelsReferencingEachOther() throws {
        try backend.run { try ForeignKeyParityChecks.modelsReferencingEachOther($0, $1) }
    }
    @Test func filterDifferential() throws {
        try backend.run { try RelationParityChecks.filterDifferential($0, $1) }
    }
    @Test func filterOnAMissingRelatedTable() throws {
        try backend.run { try RelationParityChecks.filterOnAMissingRelatedTable($0, $1) }
    }
    @Test func filterWithoutARelationIsAnError() throws {
        try backend.run { try RelationParityChecks.filterWithoutARelationIsAnError($0, $1) }
    }
    @Test func eagerLoadingChinook() throws {
        try backend.run { try EagerLoadingParityChecks.chinook($0, $1) }
    }
    @Test func eagerLoadingTextKeys() throws {
        try backend.run { try EagerLoadingParityChecks.textKeys($0, $1) }
    }
    @Test func eagerLoadingErrors() throws { try backend.run { try EagerLoadingParityChecks.errors($0, $1) } }
    @Test func searchInsideIncludingIsRefused() throws {
        try backend.run { try EagerLoadingParityChecks.searchInsideIncludingIsRefused($0, $1) }
    }
    @Test func nestedEagerLoading() throws {
        try backend.run { try EagerLoadingParityChecks.nestedTrees($0, $1) }
    }
    @Test func nestedEagerLoadingIntoDecodables() throws {
        try backend.run { try EagerLoadingParityChecks.decodableTrees($0, $1) }
    }
    @Test func nestedEagerLoadingStatementCounts() throws {
        try backend.run { try EagerLoadingParityChecks.nestedStatementCounts($0, $1) }
    }
    @Test func nestedEagerLoadingFiltersAndErrors() throws {
        try backend.run { try EagerLoadingParityChecks.nestedFiltersAndErrors($0, $1) }
    }
    @Test func uuidKeysInEverySpelling() throws {
        try backend.run { try RelationKeyParityChecks.differential($0, $1, foreignSpellings: true) }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresRelationParityTests {
    let backend = ParityBackend.postgres
    @Test func newTablesDeclareAndIndexTheirKeys() throws {
        try backend.run { try ForeignKeyParityChecks.newTablesDeclareAndIndexTheirKeys($0, $1) }
    }
    @Test func danglingKeyIsAnError() throws {
        try backend.run { try ForeignKeyParityChecks.danglingKeyIsAnError($0, $1) }
    }
    @Test func onDeleteActions() throws {
        try backend.run { try ForeignKeyParityChecks.onDeleteActions($0, $1) }
    }
    @Test func refusedDeleteInATransactionKeepsNothing() throws {
        try backend.run { try ForeignKeyParityChecks.refusedDeleteInATransactionKeepsNothing($0, $1) }
    }
    @Test func existingTableIsLeftAsItIs() throws {
        try backend.run { try ForeignKeyParityChecks.existingTableIsLeftAsItIs($0, $1) }
    }
    @Test func modelsReferencingEachOther() throws {
        try backend.run { try ForeignKeyParityChecks.modelsReferencingEachOther($0, $1) }
    }
    @Test func filterDifferential() throws {
        try backend.run { try RelationParityChecks.filterDifferential($0, $1) }
    }
    @Test func filterOnAMissingRelatedTable() throws {
        try backend.run { try RelationParityChecks.filterOnAMissingRelatedTable($0, $1) }
    }
    @Test func filterWithoutARelationIsAnError() throws {
        try backend.run { try RelationParityChecks.filterWithoutARelationIsAnError($0, $1) }
    }
    @Test func eagerLoadingChinook() throws {
        try backend.run { try EagerLoadingParityChecks.chinook($0, $1) }
    }
    @Test func eagerLoadingTextKeys() throws {
        try backend.run { try EagerLoadingParityChecks.textKeys($0, $1) }
    }
    @Test func eagerLoadingErrors() throws { try backend.run { try EagerLoadingParityChecks.errors($0, $1) } }
    @Test func searchInsideIncludingIsRefused() throws {
        try backend.run { try EagerLoadingParityChecks.searchInsideIncludingIsRefused($0, $1) }
    }
    @Test func nestedEagerLoading() throws {
        try backend.run { try EagerLoadingParityChecks.nestedTrees($0, $1) }
    }
    @Test func nestedEagerLoadingIntoDecodables() throws {
        try backend.run { try EagerLoadingParityChecks.decodableTrees($0, $1) }
    }
    @Test func nestedEagerLoadingStatementCounts() throws {
        try backend.run { try EagerLoadingParityChecks.nestedStatementCounts($0, $1) }
    }
    @Test func nestedEagerLoadingFiltersAndErrors() throws {
        try backend.run { try EagerLoadingParityChecks.nestedFiltersAndErrors($0, $1) }
    }
    @Test func uuidKeysInEitherCase() throws {
        try backend.run { try RelationKeyParityChecks.differential($0, $1, foreignSpellings: true) }
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
        _ = try ChinookData.make(on: pg)
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
        let sqlite = try Database(.inMemory)
        let pg = try PostgresTestServer.freshDatabase()
        _ = try ChinookData.make(on: sqlite)
        _ = try ChinookData.make(on: pg)
        func playlists(_ db: some ModelContext) throws -> [String] {
            try db.query(ChinookPlaylist.self).order { $0.playlistId.descending }.limit(6)
                .including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self) {
                    $0.order { $0.name.descending }
                }
                .fetchAll().map { "\($0.0.playlistId): \($0.1.map(\.name))" }
        }
        #expect(try playlists(pg) == playlists(sqlite))
        func albums(_ db: some ModelContext) throws -> [String] {
            try db.query(ChinookTrack.self).where { $0.unitPrice > 1 }.order { $0.trackId.ascending }
                .including(one: ChinookAlbum.self) { $0 }
                .fetchAll().map { "\($0.0.trackId): \($0.1?.title ?? "-")" }
        }
        #expect(try albums(pg) == albums(sqlite))
    }
}
