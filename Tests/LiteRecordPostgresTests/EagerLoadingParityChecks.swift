import Foundation
import LiteRecord
import Testing

// Eager loading on both backends over the Chinook-shaped data, compared with the same
// relation computed in Swift: to-many, to-one with NULL keys, many-to-many, self-reference,
// a composite key, narrowed and sorted children, roots' where/order/limit, empty results.

enum EagerLoadingParityChecks {
    static func chinook(_ backend: some RelationTestBackend) throws {
        let data = try ChinookData.make(on: backend)

        // to-many, roots without children, an artist without a name
        let artists = try backend.fetchAll(
            RootShape<ChinookArtist>(order: { $0.artistId.ascending }), includingAll: ChinookAlbum.self,
            via: nil
        ) { $0.order { $0.albumId.ascending } }
        #expect(artists.map(\.0) == data.artists)
        #expect(
            artists.map(\.1)
                == data.artists.map { artist in data.albums.filter { $0.artistId == artist.artistId } })
        #expect(artists.contains { $0.1.isEmpty })

        // roots narrowed, sorted and limited; children narrowed and sorted
        let albums = try backend.fetchAll(
            RootShape<ChinookAlbum>(
                condition: { $0.artistId > 3 }, order: { $0.title.descending }, limit: 15, offset: 2),
            includingAll: ChinookTrack.self, via: nil
        ) { $0.where { $0.milliseconds > 250_000 }.order { $0.trackId.descending } }
        let expectedRoots = Array(
            data.albums.filter { $0.artistId > 3 }.sorted { $0.title > $1.title }.dropFirst(2).prefix(15))
        #expect(albums.map(\.0) == expectedRoots)
        #expect(
            albums.map(\.1)
                == expectedRoots.map { album in
                    data.tracks.filter { $0.albumId == album.albumId && $0.milliseconds > 250_000 }.reversed()
                })

        // to-one with an optional key, NULL keys give nil
        let tracks = try backend.fetchAll(
            RootShape<ChinookTrack>(order: { $0.trackId.ascending }), includingOne: ChinookAlbum.self,
            via: nil
        ) { $0 }
        #expect(tracks.map(\.0) == data.tracks)
        #expect(
            tracks.map(\.1) == data.tracks.map { track in data.albums.first { $0.albumId == track.albumId } })
        #expect(tracks.filter { $0.1 == nil }.count == 5)
        // a to-one whose children closure rejects the row gives nil
        let narrowed = try backend.fetchAll(
            RootShape<ChinookAlbum>(order: { $0.albumId.ascending }), includingOne: ChinookArtist.self,
            via: nil
        ) { $0.where { $0.artistId < 10 } }
        #expect(narrowed.map { $0.1?.artistId } == data.albums.map { $0.artistId < 10 ? $0.artistId : nil })

        // many-to-many through the junction; playlist 8 is empty
        let playlists = try backend.fetchAll(
            RootShape<ChinookPlaylist>(order: { $0.playlistId.ascending }), includingAll: ChinookTrack.self,
            through: ChinookPlaylistTrack.self
        ) { $0.order { $0.trackId.ascending } }
        #expect(playlists.map(\.0) == data.playlists)
        let expectedPlaylists = data.playlists.map { playlist in
            data.tracks.filter { track in
                data.pairs.contains { $0.playlistId == playlist.playlistId && $0.trackId == track.trackId }
            }
        }
        #expect(playlists.map(\.1) == expectedPlaylists)
        #expect(playlists.last?.1 == [])
        // the children's conditions name the target's columns in the junction's subquery
        let longTracks = try backend.fetchAll(
            RootShape<ChinookPlaylist>(order: { $0.playlistId.ascending }), includingAll: ChinookTrack.self,
            through: ChinookPlaylistTrack.self
        ) { $0.where { $0.milliseconds > 300_000 }.order { $0.trackId.descending } }
        #expect(
            longTracks.map(\.1)
                == expectedPlaylists.map { $0.filter { $0.milliseconds > 300_000 }.reversed() })

        // self-reference both ways, named with via:
        let reports = try backend.fetchAll(
            RootShape<ChinookEmployee>(order: { $0.employeeId.ascending }),
            includingAll: ChinookEmployee.self,
            via: \.reportsTo
        ) { $0.order { $0.employeeId.ascending } }
        #expect(reports.map(\.0) == data.employees)
        #expect(
            reports.map(\.1)
                == data.employees.map { manager in
                    data.employees.filter { $0.reportsTo == manager.employeeId }
                })
        let managers = try backend.fetchAll(
            RootShape<ChinookEmployee>(order: { $0.employeeId.ascending }),
            includingOne: ChinookEmployee.self,
            via: \.reportsTo
        ) { $0 }
        #expect(
            managers.map(\.1)
                == data.employees.map { employee in
                    data.employees.first { $0.employeeId == employee.reportsTo }
                })

        // a composite key (PlaylistNote → PlaylistTrack)
        let pairs = try backend.fetchAll(
            RootShape<ChinookPlaylistTrack>(order: { $0.trackId.ascending }),
            includingAll: ChinookPlaylistNote.self,
            via: nil
        ) { $0.order { $0.noteId.ascending } }
        #expect(pairs.count == data.pairs.count)
        for (pair, notes) in pairs {
            #expect(
                notes == data.notes.filter { $0.playlistId == pair.playlistId && $0.trackId == pair.trackId })
        }
        let notes = try backend.fetchAll(
            RootShape<ChinookPlaylistNote>(order: { $0.noteId.ascending }),
            includingOne: ChinookPlaylistTrack.self,
            via: nil
        ) { $0 }
        #expect(notes.map(\.0) == data.notes)
        #expect(notes.allSatisfy { $0.1?.playlistId == $0.0.playlistId && $0.1?.trackId == $0.0.trackId })

        // no roots; roots none of whose keys match
        let none = try backend.fetchAll(
            RootShape<ChinookArtist>(condition: { $0.artistId > 1000 }), includingAll: ChinookAlbum.self,
            via: nil
        ) { $0 }
        #expect(none.isEmpty)
        let lonely = try backend.fetchAll(
            RootShape<ChinookArtist>(condition: { $0.artistId > 25 }, order: { $0.artistId.ascending }),
            includingAll: ChinookAlbum.self, via: nil
        ) { $0 }
        #expect(lonely.map(\.0.artistId) == [26, 27, 28, 29, 30])
        #expect(lonely.allSatisfy { $0.1.isEmpty })
    }

    /// Text keys (a key to a unique code) with quotes, backslashes and braces, which the
    /// bound key list must carry exactly.
    static func textKeys(_ backend: some RelationTestBackend) throws {
        let codes = ["NZ", "a\"b", "back\\slash", "{brace}", "comma,separated", "", "O'Neil", "ünï"]
        var cities: [RelCity] = []
        for (index, code) in codes.enumerated() {
            var country = RelCountry(id: nil, code: code)
            try backend.insert(&country)
            for number in 0..<(index % 3) {
                var city = RelCity(id: nil, countryCode: code, name: "\(code) \(number)")
                try backend.insert(&city)
                cities.append(city)
            }
        }
        let loaded = try backend.fetchAll(
            RootShape<RelCountry>(order: { $0.id.ascending }), includingAll: RelCity.self, via: nil
        ) { $0.order { $0.id.ascending } }
        #expect(loaded.map(\.0.code) == codes)
        #expect(loaded.map(\.1) == codes.map { code in cities.filter { $0.countryCode == code } })
        let back = try backend.fetchAll(
            RootShape<RelCity>(order: { $0.id.ascending }), includingOne: RelCountry.self, via: nil
        ) { $0 }
        #expect(back.map { $0.1?.code } == cities.map(\.countryCode))
    }

    /// A relation that cannot be found, and a children query with a limit, are `SchemaError`s.
    static func errors(_ backend: some RelationTestBackend) throws {
        #expect(throws: SchemaError.self) {
            _ = try backend.fetchAll(RootShape<ChinookPlaylist>(), includingAll: ChinookArtist.self, via: nil)
            { $0 }
        }
        #expect(throws: SchemaError.self) {
            _ = try backend.fetchAll(RootShape<ChinookArtist>(), includingAll: ChinookAlbum.self, via: nil) {
                $0.limit(1)
            }
        }
    }

    /// `matching` inside `including` is refused, as `limit` is, never ignored: a search ranks
    /// all the parents' rows together, which the key lookup of each parent's rows would lose.
    static func searchInsideIncludingIsRefused(_ backend: some RelationTestBackend) throws {
        var author = SearchAuthor(id: nil, name: "Ann")
        try backend.insert(&author)
        for body in ["hello world", "goodbye"] {
            var note = SearchNote(id: nil, authorId: try #require(author.id), body: body)
            try backend.insert(&note)
        }
        let error = try #require(throws: SchemaError.self) {
            _ = try backend.fetchAll(RootShape<SearchAuthor>(), includingAll: SearchNote.self, via: nil) {
                $0.matching("hello")
            }
        }
        #expect(error.message.contains("matching(_:) of SearchNote is not supported there"))
        let all = try backend.fetchAll(RootShape<SearchAuthor>(), includingAll: SearchNote.self, via: nil) {
            $0
        }
        let bodies = all.map { $0.1.map(\.body).sorted() }
        #expect(bodies == [["goodbye", "hello world"]])
    }
}

/// An author of searchable notes, for ``EagerLoadingParityChecks/searchInsideIncludingIsRefused(_:)``.
struct SearchAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<SearchAuthor>(table: "search_authors")
}

struct SearchNote: Model, Equatable {
    var id: Int64?
    var authorId: Int64
    var body: String
    static let schema = Schema<SearchNote>(table: "search_notes")
        .foreignKey(\.authorId, references: SearchAuthor.self)
        .fullTextSearch(on: [\.body])
}
