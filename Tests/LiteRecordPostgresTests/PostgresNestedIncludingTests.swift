import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// What only the PostgreSQL forms of nested eager loading have beyond the parity checks: the
// async fetches (off the calling task) and a tree built in a transaction, which reads its
// uncommitted rows.

/// An artist's tree as text: `3: [5: [12, 13]]`.
private func describe(_ tree: [(ChinookArtist, [(ChinookAlbum, [ChinookTrack])])]) -> [String] {
    tree.map { artist, albums in
        "\(artist.artistId): \(albums.map { "\($0.0.albumId): \($0.1.map(\.trackId))" })"
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresNestedIncludingTests {
    @Test func asyncFetchesGiveTheSyncTrees() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        let data = try ChinookData.make(on: pg)
        let query = pg.query(ChinookArtist.self).order { $0.artistId.descending }.limit(12)
            .including(all: ChinookAlbum.self) {
                $0.order { $0.albumId.ascending }.including(all: ChinookTrack.self) {
                    $0.where { $0.milliseconds > 200_000 }.order { $0.trackId.ascending }
                }
            }
        let sync = try { try query.fetchAll() }()  // the sync form (an async context prefers the other)
        let async = try await query.fetchAll()
        #expect(sync.count == 12)
        #expect(describe(async) == describe(sync))
        #expect(sync.contains { !$0.1.isEmpty })
        let shelves = try await query.fetchAll(NestedArtistShelf.self)
        #expect(shelves.map(\.artist) == sync.map(\.0))
        #expect(shelves.map { $0.albums.map(\.tracks) } == sync.map { $0.1.map(\.1) })
        let credits = try await pg.query(ChinookTrack.self).order { $0.trackId.ascending }
            .including(one: ChinookAlbum.self) { $0.including(one: ChinookArtist.self) }.fetchAll()
        #expect(
            credits.map { $0.1?.1?.artistId }
                == data.tracks.map { track in
                    data.albums.first { $0.albumId == track.albumId }?.artistId
                })
    }

    @Test func aTreeBuiltInATransactionReadsItsUncommittedRows() throws {
        let pg = try PostgresTestServer.freshDatabase()
        _ = try ChinookData.make(on: pg)
        let lines = try pg.transaction { tx -> [String] in
            var artist = ChinookArtist(artistId: 500, name: "New")
            try tx.insert(&artist)
            var album = ChinookAlbum(albumId: 600, title: "First", artistId: 500)
            try tx.insert(&album)
            var track = ChinookTrack(
                trackId: 700, name: "Song", albumId: 600, milliseconds: 1000, unitPrice: 0.99)
            try tx.insert(&track)
            let tree = try tx.query(ChinookArtist.self).where { $0.artistId == 500 }
                .including(all: ChinookAlbum.self) { $0.including(all: ChinookTrack.self) }.fetchAll()
            return describe(tree)
        }
        #expect(lines == ["500: [\"600: [700]\"]"])
    }
}
