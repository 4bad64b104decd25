import Foundation
import LiteRecord
import Testing

// Nested eager loading on both backends over the Chinook-shaped data, compared with the same
// trees built in Swift: three levels and more, empty children at every level, to-one trees,
// a junction, a composite key, roots' where/order/limit, children's where/order, the fetch
// into `Decodable` structs, and one statement per level whatever the number of roots.

/// An artist with their albums, each with its tracks: a nested `Decodable`.
struct NestedArtistShelf: Decodable, Equatable {
    var artist: ChinookArtist
    var albums: [NestedAlbumTracks]
}

/// An album with its tracks.
struct NestedAlbumTracks: Decodable, Equatable {
    var album: ChinookAlbum
    var tracks: [ChinookTrack]
}

/// An artist with their albums: one level.
struct FlatArtistShelf: Decodable, Equatable {
    var artist: ChinookArtist
    var albums: [ChinookAlbum]
}

/// Asks for tracks where the query fetches albums.
struct MismatchedShelf: Decodable {
    var artist: ChinookArtist
    var tracks: [ChinookTrack]
}

extension EagerLoadingParityChecks {
    static func nestedTrees(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let data = try ChinookData.make(on: db)
        func albums(of artist: ChinookArtist) -> [ChinookAlbum] {
            data.albums.filter { $0.artistId == artist.artistId }
        }
        func longTracks(of album: ChinookAlbum) -> [ChinookTrack] {
            data.tracks.filter { $0.albumId == album.albumId && $0.milliseconds > 250_000 }.reversed()
        }

        // three levels, children narrowed and sorted; artists without albums, albums without
        // long tracks
        let shelves = try db.query(ChinookArtist.self).order { $0.artistId.ascending }.including(
            all: ChinookAlbum.self
        ) {
            $0.order { $0.albumId.ascending }.including(all: ChinookTrack.self) {
                $0.where { $0.milliseconds > 250_000 }.order { $0.trackId.descending }
            }
        }.fetchAll()
        #expect(shelves.map(\.0) == data.artists)
        #expect(shelves.map { $0.1.map(\.0) } == data.artists.map(albums(of:)))
        #expect(shelves.map { $0.1.map(\.1) } == data.artists.map { albums(of: $0).map(longTracks(of:)) })
        #expect(shelves.contains { $0.1.isEmpty })
        #expect(shelves.contains { $0.1.contains { $0.1.isEmpty } })
        #expect(shelves.contains { $0.1.contains { !$0.1.isEmpty } })

        // the roots' where, order, limit and offset apply to the roots only
        let page = try db.query(ChinookArtist.self).where { $0.artistId > 3 }.order { $0.artistId.descending }
            .limit(4, offset: 1).including(all: ChinookAlbum.self) {
                $0.order { $0.albumId.descending }.including(all: ChinookTrack.self) {
                    $0.where { $0.milliseconds > 250_000 }.order { $0.trackId.descending }
                }
            }.fetchAll()
        let pageRoots = Array(data.artists.filter { $0.artistId > 3 }.reversed().dropFirst().prefix(4))
        #expect(page.map(\.0) == pageRoots)
        #expect(page.map { $0.1.map(\.0) } == pageRoots.map { albums(of: $0).reversed() })
        #expect(
            page.map { $0.1.map(\.1) } == pageRoots.map { albums(of: $0).reversed().map(longTracks(of:)) })

        // to-one trees: a track with its album and the album's artist; NULL keys give nil
        let credits = try db.query(ChinookTrack.self).order { $0.trackId.ascending }.including(
            one: ChinookAlbum.self
        ) { $0.including(one: ChinookArtist.self) }.fetchAll()
        let creditAlbums = data.tracks.map { track in data.albums.first { $0.albumId == track.albumId } }
        #expect(credits.map(\.0) == data.tracks)
        #expect(credits.map { $0.1?.0 } == creditAlbums)
        #expect(
            credits.map { $0.1?.1 }
                == creditAlbums.map { album in data.artists.first { $0.artistId == album?.artistId } })
        #expect(credits.contains { $0.1 == nil })

        // a junction, then a to-one below it
        let playlists = try db.query(ChinookPlaylist.self).order { $0.playlistId.ascending }.including(
            all: ChinookTrack.self, through: ChinookPlaylistTrack.self
        ) { $0.order { $0.trackId.ascending }.including(one: ChinookAlbum.self) }.fetchAll()
        let expectedTracks = data.playlists.map { playlist in
            data.tracks.filter { track in
                data.pairs.contains { $0.playlistId == playlist.playlistId && $0.trackId == track.trackId }
            }
        }
        #expect(playlists.map(\.0) == data.playlists)
        #expect(playlists.map { $0.1.map(\.0) } == expectedTracks)
        #expect(
            playlists.map { $0.1.map(\.1) }
                == expectedTracks.map { tracks in
                    tracks.map { track in data.albums.first { $0.albumId == track.albumId } }
                })

        // five levels, the last through a composite key
        let deep = try db.query(ChinookArtist.self).order { $0.artistId.ascending }.including(
            all: ChinookAlbum.self
        ) {
            $0.order { $0.albumId.ascending }.including(all: ChinookTrack.self) {
                $0.order { $0.trackId.ascending }.including(all: ChinookPlaylistTrack.self) {
                    $0.order { $0.playlistId.ascending }.including(all: ChinookPlaylistNote.self) {
                        $0.order { $0.noteId.ascending }
                    }
                }
            }
        }.fetchAll()
        var deepLines: [String] = []
        for (artist, albums) in deep {
            for (album, tracks) in albums {
                for (track, pairs) in tracks {
                    for (pair, notes) in pairs {
                        deepLines.append(
                            "\(artist.artistId)/\(album.albumId)/\(track.trackId)/\(pair.playlistId): "
                                + "\(notes.map(\.noteId))")
                    }
                }
            }
        }
        var expectedLines: [String] = []
        for artist in data.artists {
            for album in albums(of: artist) {
                for track in data.tracks where track.albumId == album.albumId {
                    let pairs = data.pairs.filter { $0.trackId == track.trackId }.sorted {
                        $0.playlistId < $1.playlistId
                    }
                    for pair in pairs {
                        let notes = data.notes.filter {
                            $0.playlistId == pair.playlistId && $0.trackId == pair.trackId
                        }
                        expectedLines.append(
                            "\(artist.artistId)/\(album.albumId)/\(track.trackId)/\(pair.playlistId): "
                                + "\(notes.map(\.noteId))")
                    }
                }
            }
        }
        #expect(deepLines == expectedLines)
        #expect(!data.notes.isEmpty)

        // no roots at all
        let none = try db.query(ChinookArtist.self).where { $0.artistId > 1000 }.including(
            all: ChinookAlbum.self
        ) { $0.including(all: ChinookTrack.self) }.fetchAll()
        #expect(none.isEmpty)
    }

    /// The same trees, each root decoded into a `Decodable` whose properties are the models.
    static func decodableTrees(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let data = try ChinookData.make(on: db)
        func albums(of artist: ChinookArtist) -> [ChinookAlbum] {
            data.albums.filter { $0.artistId == artist.artistId }
        }
        let shelves = try db.query(ChinookArtist.self).order { $0.artistId.ascending }.including(
            all: ChinookAlbum.self
        ) {
            $0.order { $0.albumId.ascending }.including(all: ChinookTrack.self) {
                $0.order { $0.trackId.ascending }
            }
        }.fetchAll(NestedArtistShelf.self)
        #expect(
            shelves
                == data.artists.map { artist in
                    NestedArtistShelf(
                        artist: artist,
                        albums: albums(of: artist).map { album in
                            NestedAlbumTracks(
                                album: album, tracks: data.tracks.filter { $0.albumId == album.albumId })
                        })
                })
        let flat = try db.query(ChinookArtist.self).order { $0.artistId.descending }.limit(5).including(
            all: ChinookAlbum.self
        ).fetchAll(FlatArtistShelf.self)
        let lastFive = Array(data.artists.reversed().prefix(5))
        #expect(flat == lastFive.map { FlatArtistShelf(artist: $0, albums: albums(of: $0)) })
        // A property the query does not fetch is a SchemaError that names it.
        let error = #expect(throws: SchemaError.self) {
            try db.query(ChinookArtist.self).including(all: ChinookAlbum.self).fetchAll(MismatchedShelf.self)
        }
        #expect(error?.message.contains("MismatchedShelf.tracks") == true, "\(String(describing: error))")
    }

    /// A tree runs one `SELECT` per level reached, whatever the number of roots; a level no
    /// row reaches runs none.
    static func nestedStatementCounts(_ db: some ParityDatabase, _ backend: ParityBackend) throws {
        let data = try ChinookData.make(on: db)
        for roots in [1, 5, data.artists.count] {
            let (tree, selects) = try db.selects { tx in
                try tx.query(ChinookArtist.self).order { $0.artistId.ascending }.limit(roots).including(
                    all: ChinookAlbum.self
                ) { $0.including(all: ChinookTrack.self) { $0.including(all: ChinookPlaylistTrack.self) } }
                .fetchAll()
            }
            let artistIDs = Set(data.artists.prefix(roots).map(\.artistId))
            let albumIDs = Set(data.albums.filter { artistIDs.contains($0.artistId) }.map(\.albumId))
            let trackIDs = Set(data.tracks.filter { albumIDs.contains($0.albumId ?? -1) }.map(\.trackId))
            let levels = [artistIDs.isEmpty, albumIDs.isEmpty, trackIDs.isEmpty].filter { !$0 }.count
            #expect(tree.count == roots)
            #expect(selects.count == 1 + levels, "\(backend.name), \(roots) roots: \(selects)")
            // keys are bound, never written into the SQL
            #expect(selects.allSatisfy { !$0.contains("[1") && !$0.contains("{1") })
        }
        let (all, selects) = try db.selects { tx in
            try tx.query(ChinookArtist.self).including(all: ChinookAlbum.self) {
                $0.including(all: ChinookTrack.self) { $0.including(all: ChinookPlaylistTrack.self) }
            }.fetchAll()
        }
        #expect(all.count == data.artists.count)
        #expect(selects.count == 4, "\(selects)")
        let (none, noSelects) = try db.selects { tx in
            try tx.query(ChinookArtist.self).where { $0.artistId > 1000 }.including(all: ChinookAlbum.self) {
                $0.including(all: ChinookTrack.self)
            }.fetchAll()
        }
        #expect(none.isEmpty)
        #expect(noSelects.count == 1, "\(noSelects)")
    }
}

extension EagerLoadingParityChecks {
    /// A relation filter inside a nested children closure, inside the children closure of a
    /// `through:` load (whose `EXISTS` names the target's table, read there in a subquery), and
    /// the children query's limit at a nested level (an error naming the limit, as at the first
    /// level).
    static func nestedFiltersAndErrors(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let data = try ChinookData.make(on: db)
        // the tracks of each album that are in playlist 1, and their playlist pairs
        let shelves = try db.query(ChinookArtist.self).order { $0.artistId.ascending }.including(
            all: ChinookAlbum.self
        ) {
            $0.order { $0.albumId.ascending }.including(all: ChinookTrack.self) {
                $0.where(any: ChinookPlaylistTrack.self) { $0.playlistId == 1 }.order { $0.trackId.ascending }
            }
        }.fetchAll()
        let inFirstPlaylist = Set(data.pairs.filter { $0.playlistId == 1 }.map(\.trackId))
        let expected = data.artists.map { artist in
            data.albums.filter { $0.artistId == artist.artistId }.map { album in
                data.tracks.filter { $0.albumId == album.albumId && inFirstPlaylist.contains($0.trackId) }
            }
        }
        #expect(shelves.map { $0.1.map(\.1) } == expected)
        #expect(expected.contains { $0.contains { !$0.isEmpty } })
        #expect(expected.contains { $0.contains { $0.isEmpty } })

        try junctionFilters(db, data)
        let error = #expect(throws: SchemaError.self) {
            try db.query(ChinookArtist.self).including(all: ChinookAlbum.self) {
                $0.including(all: ChinookTrack.self) { $0.limit(1) }
            }.fetchAll()
        }
        #expect(error?.message.contains("limit") == true, "\(String(describing: error))")
    }
}

extension EagerLoadingParityChecks {
    /// Relation filters in the children closure of a `through:` load, at the first level and
    /// below a direct one, and on a to-one level below the junction.
    private static func junctionFilters(_ db: some ModelContext, _ data: ChinookData) throws {
        func tracks(of playlist: ChinookPlaylist) -> [ChinookTrack] {
            data.tracks.filter { track in
                data.pairs.contains { $0.playlistId == playlist.playlistId && $0.trackId == track.trackId }
            }
        }
        func album(of track: ChinookTrack) -> ChinookAlbum? {
            data.albums.first { $0.albumId == track.albumId }
        }
        let roots = db.query(ChinookPlaylist.self).order { $0.playlistId.ascending }

        // each playlist's tracks of album 5 or by an artist below 6, last first
        let byAlbum = try roots.including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self) {
            $0.where(ChinookAlbum.self) { $0.title == "Album 5" || $0.artistId < 6 }.order {
                $0.trackId.descending
            }
        }.fetchAll()
        let expectedByAlbum = data.playlists.map { playlist in
            Array(
                tracks(of: playlist).filter { track in
                    album(of: track).map { $0.title == "Album 5" || $0.artistId < 6 } ?? false
                }
                .reversed())
        }
        #expect(byAlbum.map(\.0) == data.playlists)
        #expect(byAlbum.map(\.1) == expectedByAlbum)
        #expect(expectedByAlbum.contains { !$0.isEmpty })
        #expect(expectedByAlbum.map(\.count).reduce(0, +) < data.pairs.count)

        // each playlist's tracks that playlist 1 holds too, each with its album when by an artist
        // below 10
        let shared = try roots.including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self) {
            $0.where(any: ChinookPlaylistTrack.self) { $0.playlistId == 1 }.order { $0.trackId.ascending }
                .including(one: ChinookAlbum.self) { $0.where(ChinookArtist.self) { $0.artistId < 10 } }
        }.fetchAll()
        let inFirstPlaylist = Set(data.pairs.filter { $0.playlistId == 1 }.map(\.trackId))
        let expectedShared = data.playlists.map { playlist in
            tracks(of: playlist).filter { inFirstPlaylist.contains($0.trackId) }
        }
        #expect(shared.map { $0.1.map(\.0) } == expectedShared)
        #expect(
            shared.map { $0.1.map { $0.1 } }
                == expectedShared.map { tracks in
                    tracks.map { track in album(of: track).flatMap { $0.artistId < 10 ? $0 : nil } }
                })
        #expect(expectedShared.filter { !$0.isEmpty }.count > 1)

        // below a direct level: albums, their tracks, and each track's playlists (but 2) that
        // hold a track of the first quarter
        let bound = Int64(data.tracks.count / 4)
        let holdingEarly = Set(data.pairs.filter { $0.trackId < bound }.map(\.playlistId))
        let shelves = try db.query(ChinookAlbum.self).order { $0.albumId.ascending }.including(
            all: ChinookTrack.self
        ) {
            $0.order { $0.trackId.ascending }
                .including(all: ChinookPlaylist.self, through: ChinookPlaylistTrack.self) {
                    $0.where(any: ChinookPlaylistTrack.self) { $0.trackId < bound }
                        .where { $0.playlistId != 2 }.order { $0.playlistId.ascending }
                }
        }.fetchAll()
        let expectedShelves = data.albums.map { album in
            data.tracks.filter { $0.albumId == album.albumId }.map { track in
                data.pairs.filter { $0.trackId == track.trackId }.map(\.playlistId)
                    .filter { holdingEarly.contains($0) && $0 != 2 }.sorted()
            }
        }
        #expect(shelves.map(\.0) == data.albums)
        #expect(shelves.map { $0.1.map { $0.1.map(\.playlistId) } } == expectedShelves)
        #expect(expectedShelves.joined().contains { !$0.isEmpty })
        // the relation filter leaves out some playlist a track is in
        #expect(data.pairs.contains { $0.playlistId != 2 && !holdingEarly.contains($0.playlistId) })
    }
}
