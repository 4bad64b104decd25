import Foundation
import LiteRecord
import Testing

// Filters across relations and eager loading on both backends, over the Chinook-shaped data:
// each result is compared with the same relation computed in Swift from the inserted rows
// (both backends hold the same rows, so they agree with each other too).

enum RelationParityChecks {
    /// `where(Related.self)` and `where(any:)` select exactly the rows the same filter selects
    /// in Swift, over random thresholds, text, NULL, self-reference and a composite key.
    static func filterDifferential(_ backend: some RelationTestBackend) throws {
        let data = try ChinookData.make(on: backend)
        var random = SplitMix64(state: 77)
        for _ in 0..<12 {
            let artistLimit = Int64.random(in: 0...32, using: &random)
            let length = Int.random(in: 50_000...650_000, using: &random)
            let price = [0.99, 1.99, 1.5][Int.random(in: 0...2, using: &random)]

            // to-one: tracks whose album's artist is below a bound (a NULL album key: not kept)
            let tracks = try backend.fetchAll(ChinookTrack.self, whose: ChinookAlbum.self, via: nil) {
                $0.artistId < artistLimit
            }
            let expectedTracks = data.tracks.filter { track in
                data.albums.contains { $0.albumId == track.albumId && $0.artistId < artistLimit }
            }
            #expect(sorted(tracks, \.trackId) == expectedTracks, "\(backend.name) artistId < \(artistLimit)")

            // to-many: albums with a track longer than a bound and of a price
            let albums = try backend.fetchAll(ChinookAlbum.self, withAny: ChinookTrack.self, via: nil) {
                $0.milliseconds > length && $0.unitPrice == price
            }
            let expectedAlbums = data.albums.filter { album in
                data.tracks.contains {
                    $0.albumId == album.albumId && $0.milliseconds > length && $0.unitPrice == price
                }
            }
            #expect(sorted(albums, \.albumId) == expectedAlbums, "\(backend.name) length > \(length)")
            let counted = try backend.count(ChinookAlbum.self, withAny: ChinookTrack.self) {
                $0.milliseconds > length && $0.unitPrice == price
            }
            #expect(counted == expectedAlbums.count)

            // negated: artists with no album among the first ones
            let artists = try backend.fetchAll(ChinookArtist.self, withAny: ChinookAlbum.self, via: nil) {
                !($0.albumId > artistLimit)
            }
            let expectedArtists = data.artists.filter { artist in
                data.albums.contains { $0.artistId == artist.artistId && !($0.albumId > artistLimit) }
            }
            #expect(sorted(artists, \.artistId) == expectedArtists)
        }
        // text and NULL on the related row: albums of the artist without a name
        let unnamed = try backend.fetchAll(ChinookAlbum.self, whose: ChinookArtist.self, via: nil) {
            $0.name == nil
        }
        let expectedUnnamed = data.albums.filter { album in
            data.artists.contains { $0.artistId == album.artistId && $0.name == nil }
        }
        #expect(sorted(unnamed, \.albumId) == expectedUnnamed)
        let quoted = try backend.fetchAll(ChinookAlbum.self, whose: ChinookArtist.self, via: nil) {
            $0.name == "Artist '3'"
        }
        #expect(sorted(quoted, \.albumId) == data.albums.filter { $0.artistId == 3 })

        // self-reference, both directions, named with via:
        for city in ["Calgary", "Edmonton", "Lethbridge", "Nowhere"] {
            let managedFrom = try backend.fetchAll(
                ChinookEmployee.self, whose: ChinookEmployee.self, via: \.reportsTo
            ) {
                $0.city == city
            }
            let expectedManaged = data.employees.filter { employee in
                data.employees.contains { $0.employeeId == employee.reportsTo && $0.city == city }
            }
            #expect(
                sorted(managedFrom, \.employeeId) == expectedManaged, "\(backend.name) manager in \(city)")
            let managers = try backend.fetchAll(
                ChinookEmployee.self, withAny: ChinookEmployee.self, via: \.reportsTo
            ) {
                $0.city == city
            }
            let expectedManagers = data.employees.filter { manager in
                data.employees.contains { $0.reportsTo == manager.employeeId && $0.city == city }
            }
            #expect(sorted(managers, \.employeeId) == expectedManagers, "\(backend.name) report in \(city)")
        }

        // a composite key: notes whose playlist-track pair is in the first playlists
        for bound in Int64(0)...8 {
            let notes = try backend.fetchAll(
                ChinookPlaylistNote.self, whose: ChinookPlaylistTrack.self, via: nil
            ) {
                $0.playlistId < bound
            }
            #expect(sorted(notes, \.noteId) == data.notes.filter { $0.playlistId < bound })
            let pairs = try backend.fetchAll(
                ChinookPlaylistTrack.self, withAny: ChinookPlaylistNote.self, via: nil
            ) {
                $0.playlistId < bound
            }
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
    static func filterOnAMissingRelatedTable(_ backend: some RelationTestBackend) throws {
        var author = RelAuthor(id: nil, name: "Solo")
        try backend.insert(&author)
        // Changes first: each entry point must prepare the related table on its own.
        let changes = try backend.authorChanges(withAnyBook: { $0.year > 0 })
        #expect(changes.updated == 0)
        #expect(changes.maxName == nil)
        #expect(changes.deleted == 0)
        let authors = try backend.fetchAll(RelAuthor.self, withAny: RelBook.self, via: nil) { $0.year > 0 }
        #expect(authors.isEmpty)
        let counted = try backend.count(RelAuthor.self, withAny: RelBook.self) { $0.year > 0 }
        #expect(counted == 0)
        let names = try backend.fetchAll(RelAuthor.self).map(\.name)
        #expect(names == ["Solo"])
    }

    /// A filter naming a model with no relation to the query's is a `SchemaError` naming both.
    static func filterWithoutARelationIsAnError(_ backend: some RelationTestBackend) throws {
        do {
            _ = try backend.fetchAll(ChinookPlaylist.self, whose: ChinookArtist.self, via: nil) {
                $0.name == "x"
            }
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
