import Foundation
import LiteRecord
import Testing

// Eager loading on both backends over the Chinook-shaped data, compared with the same
// relation computed in Swift: to-many, to-one with NULL keys, many-to-many, self-reference,
// a composite key, narrowed and sorted children, roots' where/order/limit, empty results.

enum EagerLoadingParityChecks {
    static func chinook(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let data = try ChinookData.make(on: db)

        // to-many, roots without children, an artist without a name
        let artists = try db.query(ChinookArtist.self).order { $0.artistId.ascending }.including(
            all: ChinookAlbum.self
        ) { $0.order { $0.albumId.ascending } }.fetchAll()
        #expect(artists.map(\.0) == data.artists)
        #expect(
            artists.map(\.1)
                == data.artists.map { artist in data.albums.filter { $0.artistId == artist.artistId } })
        #expect(artists.contains { $0.1.isEmpty })

        // roots narrowed, sorted and limited; children narrowed and sorted
        let albums = try db.query(ChinookAlbum.self).where { $0.artistId > 3 }.order { $0.title.descending }
            .limit(15, offset: 2).including(all: ChinookTrack.self) {
                $0.where { $0.milliseconds > 250_000 }.order { $0.trackId.descending }
            }.fetchAll()
        let expectedRoots = Array(
            data.albums.filter { $0.artistId > 3 }.sorted { $0.title > $1.title }.dropFirst(2).prefix(15))
        #expect(albums.map(\.0) == expectedRoots)
        #expect(
            albums.map(\.1)
                == expectedRoots.map { album in
                    data.tracks.filter { $0.albumId == album.albumId && $0.milliseconds > 250_000 }.reversed()
                })

        // any operation of Query on the roots (here a relation filter: artists with an album whose title ends in 2); each root keeps all its
        // related rows, whatever the filter read
        let endingIn2 = try db.query(ChinookArtist.self).including(all: ChinookAlbum.self) {
            $0.order { $0.albumId.ascending }
        }.changingRoots {
            $0.where(any: ChinookAlbum.self) { $0.title.hasSuffix("2") }.order { $0.artistId.descending }
        }.fetchAll()
        let expectedEndingIn2 = data.artists.reversed().filter { artist in
            data.albums.contains { $0.artistId == artist.artistId && $0.title.hasSuffix("2") }
        }
        #expect(!expectedEndingIn2.isEmpty)
        #expect(endingIn2.map(\.0) == expectedEndingIn2)
        #expect(
            endingIn2.map(\.1)
                == expectedEndingIn2.map { artist in data.albums.filter { $0.artistId == artist.artistId } })
        let firstAlbums = try db.query(ChinookAlbum.self).including(one: ChinookArtist.self) { $0 }
            .changingRoots { $0.order { $0.albumId.ascending }.limit(3) }.fetchAll()
        #expect(firstAlbums.map(\.0) == Array(data.albums.prefix(3)))
        #expect(
            firstAlbums.map { $0.1?.artistId } == data.albums.prefix(3).map { Optional($0.artistId) })

        // to-one with an optional key, NULL keys give nil
        let tracks = try db.query(ChinookTrack.self).order { $0.trackId.ascending }.including(
            one: ChinookAlbum.self
        ) { $0 }.fetchAll()
        #expect(tracks.map(\.0) == data.tracks)
        #expect(
            tracks.map(\.1) == data.tracks.map { track in data.albums.first { $0.albumId == track.albumId } })
        #expect(tracks.filter { $0.1 == nil }.count == 5)
        // a to-one whose children closure rejects the row gives nil
        let narrowed = try db.query(ChinookAlbum.self).order { $0.albumId.ascending }.including(
            one: ChinookArtist.self
        ) { $0.where { $0.artistId < 10 } }.fetchAll()
        #expect(narrowed.map { $0.1?.artistId } == data.albums.map { $0.artistId < 10 ? $0.artistId : nil })

        // many-to-many through the junction; playlist 8 is empty
        let playlists = try db.query(ChinookPlaylist.self).order { $0.playlistId.ascending }.including(
            all: ChinookTrack.self, through: ChinookPlaylistTrack.self
        ) { $0.order { $0.trackId.ascending } }.fetchAll()
        #expect(playlists.map(\.0) == data.playlists)
        let expectedPlaylists = data.playlists.map { playlist in
            data.tracks.filter { track in
                data.pairs.contains { $0.playlistId == playlist.playlistId && $0.trackId == track.trackId }
            }
        }
        #expect(playlists.map(\.1) == expectedPlaylists)
        #expect(playlists.last?.1 == [])
        // the children's conditions name the target's columns in the junction's subquery
        let longTracks = try db.query(ChinookPlaylist.self).order { $0.playlistId.ascending }.including(
            all: ChinookTrack.self, through: ChinookPlaylistTrack.self
        ) { $0.where { $0.milliseconds > 300_000 }.order { $0.trackId.descending } }.fetchAll()
        #expect(
            longTracks.map(\.1)
                == expectedPlaylists.map { $0.filter { $0.milliseconds > 300_000 }.reversed() })

        // self-reference both ways, named with via:
        let reports = try db.query(ChinookEmployee.self).order { $0.employeeId.ascending }.including(
            all: ChinookEmployee.self, via: \.reportsTo
        ) { $0.order { $0.employeeId.ascending } }.fetchAll()
        #expect(reports.map(\.0) == data.employees)
        #expect(
            reports.map(\.1)
                == data.employees.map { manager in
                    data.employees.filter { $0.reportsTo == manager.employeeId }
                })
        let managers = try db.query(ChinookEmployee.self).order { $0.employeeId.ascending }.including(
            one: ChinookEmployee.self, via: \.reportsTo
        ) { $0 }.fetchAll()
        #expect(
            managers.map(\.1)
                == data.employees.map { employee in
                    data.employees.first { $0.employeeId == employee.reportsTo }
                })

        // a composite key (PlaylistNote → PlaylistTrack)
        let pairs = try db.query(ChinookPlaylistTrack.self).order { $0.trackId.ascending }.including(
            all: ChinookPlaylistNote.self
        ) { $0.order { $0.noteId.ascending } }.fetchAll()
        #expect(pairs.count == data.pairs.count)
        for (pair, notes) in pairs {
            #expect(
                notes == data.notes.filter { $0.playlistId == pair.playlistId && $0.trackId == pair.trackId })
        }
        let notes = try db.query(ChinookPlaylistNote.self).order { $0.noteId.ascending }.including(
            one: ChinookPlaylistTrack.self
        ) { $0 }.fetchAll()
        #expect(notes.map(\.0) == data.notes)
        #expect(notes.allSatisfy { $0.1?.playlistId == $0.0.playlistId && $0.1?.trackId == $0.0.trackId })

        // no roots; roots none of whose keys match
        let none = try db.query(ChinookArtist.self).where { $0.artistId > 1000 }.including(
            all: ChinookAlbum.self
        ) { $0 }.fetchAll()
        #expect(none.isEmpty)
        let lonely = try db.query(ChinookArtist.self).where { $0.artistId > 25 }.order {
            $0.artistId.ascending
        }.including(all: ChinookAlbum.self) { $0 }.fetchAll()
        #expect(lonely.map(\.0.artistId) == [26, 27, 28, 29, 30])
        #expect(lonely.allSatisfy { $0.1.isEmpty })
    }

    /// Text keys (a key to a unique code) with quotes, backslashes and braces, which the
    /// bound key list must carry exactly.
    static func textKeys(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let codes = ["NZ", "a\"b", "back\\slash", "{brace}", "comma,separated", "", "O'Neil", "ünï"]
        var cities: [RelCity] = []
        for (index, code) in codes.enumerated() {
            var country = RelCountry(id: nil, code: code)
            try db.insert(&country)
            for number in 0..<(index % 3) {
                var city = RelCity(id: nil, countryCode: code, name: "\(code) \(number)")
                try db.insert(&city)
                cities.append(city)
            }
        }
        let loaded = try db.query(RelCountry.self).order { $0.id.ascending }.including(all: RelCity.self) {
            $0.order { $0.id.ascending }
        }.fetchAll()
        #expect(loaded.map(\.0.code) == codes)
        #expect(loaded.map(\.1) == codes.map { code in cities.filter { $0.countryCode == code } })
        let back = try db.query(RelCity.self).order { $0.id.ascending }.including(one: RelCountry.self) { $0 }
            .fetchAll()
        #expect(back.map { $0.1?.code } == cities.map(\.countryCode))
    }

    /// A relation that cannot be found, and a children query with a limit, are `SchemaError`s.
    static func errors(_ db: some ModelContext, _ backend: ParityBackend) throws {
        #expect(throws: SchemaError.self) {
            _ = try db.query(ChinookPlaylist.self).including(all: ChinookArtist.self) { $0 }.fetchAll()
        }
        #expect(throws: SchemaError.self) {
            _ = try db.query(ChinookArtist.self).including(all: ChinookAlbum.self) {
                $0.limit(1)
            }.fetchAll()
        }
    }

    /// `matching` inside `including` is refused, as `limit` is, never ignored: a search ranks
    /// all the parents' rows together, which the key lookup of each parent's rows would lose.
    static func searchInsideIncludingIsRefused(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var author = SearchAuthor(id: nil, name: "Ann")
        try db.insert(&author)
        for body in ["hello world", "goodbye"] {
            var note = SearchNote(id: nil, authorId: try #require(author.id), body: body)
            try db.insert(&note)
        }
        let error = try #require(throws: SchemaError.self) {
            _ = try db.query(SearchAuthor.self).including(all: SearchNote.self) {
                $0.matching("hello")
            }.fetchAll()
        }
        #expect(error.message.contains("matching(_:) of SearchNote is not supported there"))
        let all = try db.query(SearchAuthor.self).including(all: SearchNote.self) {
            $0
        }.fetchAll()
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
