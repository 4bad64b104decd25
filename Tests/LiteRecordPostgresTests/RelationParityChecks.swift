import Foundation
import LiteRecord
import Testing

// Filters across relations and eager loading on both backends, over the Chinook-shaped data:
// each result is compared with the same relation computed in Swift from the inserted rows
// (both backends hold the same rows, so they agree with each other too).

enum RelationParityChecks {
    /// `where(Related.self)` and `where(any:)` select exactly the rows the same filter selects
    /// in Swift, over random thresholds, text, NULL, self-reference and a composite key.
    static func filterDifferential(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let data = try ChinookData.make(on: db)
        var random = SplitMix64(state: 77)
        for _ in 0..<12 {
            let artistLimit = Int64.random(in: 0...32, using: &random)
            let length = Int.random(in: 50_000...650_000, using: &random)
            let price = [0.99, 1.99, 1.5][Int.random(in: 0...2, using: &random)]

            // to-one: tracks whose album's artist is below a bound (a NULL album key: not kept)
            let tracks = try db.query(ChinookTrack.self).where(ChinookAlbum.self) {
                $0.artistId < artistLimit
            }.fetchAll()
            let expectedTracks = data.tracks.filter { track in
                data.albums.contains { $0.albumId == track.albumId && $0.artistId < artistLimit }
            }
            #expect(sorted(tracks, \.trackId) == expectedTracks, "\(backend.name) artistId < \(artistLimit)")

            // to-many: albums with a track longer than a bound and of a price
            let albums = try db.query(ChinookAlbum.self).where(any: ChinookTrack.self) {
                $0.milliseconds > length && $0.unitPrice == price
            }.fetchAll()
            let expectedAlbums = data.albums.filter { album in
                data.tracks.contains {
                    $0.albumId == album.albumId && $0.milliseconds > length && $0.unitPrice == price
                }
            }
            #expect(sorted(albums, \.albumId) == expectedAlbums, "\(backend.name) length > \(length)")
            let counted = try db.query(ChinookAlbum.self).where(any: ChinookTrack.self) {
                $0.milliseconds > length && $0.unitPrice == price
            }.count()
            #expect(counted == expectedAlbums.count)

            // negated: artists with no album among the first ones
            let artists = try db.query(ChinookArtist.self).where(any: ChinookAlbum.self) {
                !($0.albumId > artistLimit)
            }.fetchAll()
            let expectedArtists = data.artists.filter { artist in
                data.albums.contains { $0.artistId == artist.artistId && !($0.albumId > artistLimit) }
            }
            #expect(sorted(artists, \.artistId) == expectedArtists)
        }
        // text and NULL on the related row: albums of the artist without a name
        let unnamed = try db.query(ChinookAlbum.self).where(ChinookArtist.self) {
            $0.name == nil
        }.fetchAll()
        let expectedUnnamed = data.albums.filter { album in
            data.artists.contains { $0.artistId == album.artistId && $0.name == nil }
        }
        #expect(sorted(unnamed, \.albumId) == expectedUnnamed)
        let quoted = try db.query(ChinookAlbum.self).where(ChinookArtist.self) {
            $0.name == "Artist '3'"
        }.fetchAll()
        #expect(sorted(quoted, \.albumId) == data.albums.filter { $0.artistId == 3 })

        // self-reference, both directions, named with via:
        for city in ["Calgary", "Edmonton", "Lethbridge", "Nowhere"] {
            let managedFrom = try db.query(ChinookEmployee.self).where(ChinookEmployee.self, via: \.reportsTo)
            {
                $0.city == city
            }.fetchAll()
            let expectedManaged = data.employees.filter { employee in
                data.employees.contains { $0.employeeId == employee.reportsTo && $0.city == city }
            }
            #expect(
                sorted(managedFrom, \.employeeId) == expectedManaged, "\(backend.name) manager in \(city)")
            let managers = try db.query(ChinookEmployee.self).where(
                any: ChinookEmployee.self, via: \.reportsTo
            ) {
                $0.city == city
            }.fetchAll()
            let expectedManagers = data.employees.filter { manager in
                data.employees.contains { $0.reportsTo == manager.employeeId && $0.city == city }
            }
            #expect(sorted(managers, \.employeeId) == expectedManagers, "\(backend.name) report in \(city)")
        }

        // a composite key: notes whose playlist-track pair is in the first playlists
        for bound in Int64(0)...8 {
            let notes = try db.query(ChinookPlaylistNote.self).where(ChinookPlaylistTrack.self) {
                $0.playlistId < bound
            }.fetchAll()
            #expect(sorted(notes, \.noteId) == data.notes.filter { $0.playlistId < bound })
            let pairs = try db.query(ChinookPlaylistTrack.self).where(any: ChinookPlaylistNote.self) {
                $0.playlistId < bound
            }.fetchAll()
            let expectedPairs = data.pairs.filter { pair in
                data.notes.contains {
                    $0.playlistId == pair.playlistId && $0.trackId == pair.trackId && $0.playlistId < bound
                }
            }
            #expect(
                Set(pairs.map { "\($0.playlistId)/\($0.trackId)" })
                    == Set(expectedPairs.map { "\($0.playlistId)/\($0.trackId)" }))
        }
    }

    /// `where(any:)` on a model whose related table does not exist yet reads as empty (the
    /// PostgreSQL query creates the related table as it creates its own).
    static func filterOnAMissingRelatedTable(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var author = RelAuthor(id: nil, name: "Solo")
        try db.insert(&author)
        // Changes first: each entry point must prepare the related table on its own.
        let withBooks = db.query(RelAuthor.self).where(any: RelBook.self) { $0.year > 0 }
        #expect(try withBooks.updateAll { [$0.name.set(to: "renamed")] } == 0)
        #expect(try withBooks.max { $0.name } == nil)
        #expect(try withBooks.deleteAll() == 0)
        let authors = try db.query(RelAuthor.self).where(any: RelBook.self) { $0.year > 0 }.fetchAll()
        #expect(authors.isEmpty)
        let counted = try db.query(RelAuthor.self).where(any: RelBook.self) { $0.year > 0 }.count()
        #expect(counted == 0)
        let names = try db.fetchAll(RelAuthor.self).map(\.name)
        #expect(names == ["Solo"])
    }

    /// A filter naming a model with no relation to the query's is a `SchemaError` naming both.
    static func filterWithoutARelationIsAnError(_ db: some ModelContext, _ backend: ParityBackend) throws {
        do {
            _ = try db.query(ChinookPlaylist.self).where(ChinookArtist.self) {
                $0.name == "x"
            }.fetchAll()
            Issue.record("no error on \(backend.name)")
        } catch let error as SchemaError {
            #expect(error.message.contains("ChinookPlaylist"))
            #expect(error.message.contains("ChinookArtist"))
        }
    }

    private static func sorted<M, Key: Comparable>(_ models: [M], _ key: KeyPath<M, Key>) -> [M] {
        models.sorted { $0[keyPath: key] < $1[keyPath: key] }
    }
}
