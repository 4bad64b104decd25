import Foundation
import LiteRecord
import Testing

/// Relations over a Chinook-shaped database another tool wrote, each compared with the same
/// relation computed in Swift from every row fetched on its own.
@Suite struct ChinookRelationsTests {
    private struct Everything {
        let artists: [ChinookArtist]
        let albums: [ChinookAlbum]
        let tracks: [ChinookTrack]
        let playlists: [ChinookPlaylist]
        let pairs: [ChinookPlaylistTrack]
        let notes: [ChinookPlaylistNote]
        let employees: [ChinookEmployee]

        init(_ db: Database) throws {
            artists = try db.query(ChinookArtist.self).order { $0.artistId }.fetchAll()
            albums = try db.query(ChinookAlbum.self).order { $0.albumId }.fetchAll()
            tracks = try db.query(ChinookTrack.self).order { $0.trackId }.fetchAll()
            playlists = try db.query(ChinookPlaylist.self).order { $0.playlistId }.fetchAll()
            pairs = try db.query(ChinookPlaylistTrack.self).fetchAll()
            notes = try db.query(ChinookPlaylistNote.self).order { $0.noteId }.fetchAll()
            employees = try db.query(ChinookEmployee.self).order { $0.employeeId }.fetchAll()
        }
    }

    private func withChinook(_ body: (Database, Everything) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let db = try ChinookFixture.make(in: directory)
            let before = try db.fetchAll(String?.self, sql: "SELECT sql FROM sqlite_master ORDER BY name")
            try body(db, try Everything(db))
            // Using the models changed nothing in the tables another tool wrote.
            #expect(
                try db.fetchAll(String?.self, sql: "SELECT sql FROM sqlite_master ORDER BY name") == before)
        }
    }

    @Test func toManyArtistsWithAlbums() throws {
        try withChinook { db, all in
            let loaded = try db.query(ChinookArtist.self).order { $0.artistId }
                .including(all: ChinookAlbum.self) { $0.order { $0.albumId } }.fetchAll()
            #expect(loaded.map(\.0) == all.artists)
            let albumsByArtist = all.artists.map { artist in
                all.albums.filter { $0.artistId == artist.artistId }
            }
            #expect(loaded.map(\.1) == albumsByArtist)
            let someWithoutAlbums = loaded.contains { $0.1.isEmpty }
            #expect(someWithoutAlbums)  // artists without albums
            let someWithoutName = loaded.contains { $0.0.name == nil }
            #expect(someWithoutName)
        }
    }

    @Test func toOneWithAnOptionalKeyAndNullKeys() throws {
        try withChinook { db, all in
            let loaded = try db.query(ChinookTrack.self).order { $0.trackId }.including(
                one: ChinookAlbum.self
            ).fetchAll()
            #expect(loaded.map(\.0) == all.tracks)
            let albumOfEachTrack = all.tracks.map { track in
                all.albums.first { $0.albumId == track.albumId }
            }
            #expect(loaded.map(\.1) == albumOfEachTrack)
            let withoutAlbum = loaded.filter { $0.1 == nil }.count
            #expect(withoutAlbum == 5)
        }
    }

    @Test func manyToManyPlaylistsWithTracks() throws {
        try withChinook { db, all in
            let loaded = try db.query(ChinookPlaylist.self).order { $0.playlistId }
                .including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self) {
                    $0.order { $0.trackId }
                }
                .fetchAll()
            #expect(loaded.map(\.0) == all.playlists)
            let expected = all.playlists.map { playlist in
                all.tracks.filter { track in
                    all.pairs.contains { $0.playlistId == playlist.playlistId && $0.trackId == track.trackId }
                }
            }
            #expect(loaded.map(\.1) == expected)
            #expect(loaded.last?.1 == [])
            // Narrowed on the target's columns, which share names with the junction's.
            let long = try db.query(ChinookPlaylist.self).order { $0.playlistId }
                .including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self) {
                    $0.where { $0.milliseconds > 300_000 && $0.trackId > 3 }.order { $0.name.descending }
                }
                .fetchAll()
            let expectedLong = expected.map { tracks in
                tracks.filter { $0.milliseconds > 300_000 && $0.trackId > 3 }.sorted {
                    $0.name > $1.name
                }
            }
            #expect(long.map(\.1) == expectedLong)
            // And the reverse direction.
            let onPlaylists = try db.query(ChinookTrack.self).order { $0.trackId }
                .including(all: ChinookPlaylist.self, through: ChinookPlaylistTrack.self) {
                    $0.order { $0.playlistId }
                }
                .fetchAll()
            let loadedPlaylistIDs = onPlaylists.map { $0.1.map(\.playlistId) }
            let expectedPlaylistIDs = all.tracks.map { track in
                all.pairs.filter { $0.trackId == track.trackId }.map(\.playlistId).sorted()
            }
            #expect(loadedPlaylistIDs == expectedPlaylistIDs)
        }
    }

    /// A relation filter in the children closure of a `through:` load: its `EXISTS` names the
    /// target's table, which the junction's statement reads under another name. Each playlist's
    /// tracks narrowed by their album (`where(Album.self)`) or by another playlist holding them
    /// (`where(any: PlaylistTrack.self)`), compared with the same filters in Swift.
    @Test func relationFiltersInsideAJunctionLoadMatchSwift() throws {
        try withChinook { db, all in
            func tracks(of playlist: ChinookPlaylist) -> [ChinookTrack] {
                all.tracks.filter { track in
                    all.pairs.contains { $0.playlistId == playlist.playlistId && $0.trackId == track.trackId }
                }
            }
            func album(of track: ChinookTrack) -> ChinookAlbum? {
                all.albums.first { $0.albumId == track.albumId }
            }
            func isIn(_ playlistID: Int64, _ track: ChinookTrack) -> Bool {
                all.pairs.contains { $0.playlistId == playlistID && $0.trackId == track.trackId }
            }
            var kept = 0
            var dropped = 0
            var random = SeededGenerator(seed: 2_718)
            for _ in 0..<12 {
                let title = "Album \(Int.random(in: 1...all.albums.count, using: &random))"
                let artistLimit = Int64.random(in: 1...12, using: &random)
                let other = Int64.random(in: 1...7, using: &random)
                let byAlbum = try db.query(ChinookPlaylist.self).order { $0.playlistId }
                    .including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self) {
                        $0.where(ChinookAlbum.self) { $0.title == title || $0.artistId < artistLimit }
                            .order { $0.trackId.descending }
                    }
                    .fetchAll()
                let expectedByAlbum = all.playlists.map { playlist in
                    Array(
                        tracks(of: playlist).filter { track in
                            album(of: track).map { $0.title == title || $0.artistId < artistLimit } ?? false
                        }
                        .reversed())
                }
                #expect(byAlbum.map(\.0) == all.playlists)
                #expect(byAlbum.map(\.1) == expectedByAlbum, "\(title), artists below \(artistLimit)")
                let shared = try db.query(ChinookPlaylist.self).order { $0.playlistId }
                    .including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self) {
                        $0.where(any: ChinookPlaylistTrack.self) { $0.playlistId == other }
                            .where { $0.milliseconds > 100_000 }.order { $0.trackId }
                    }
                    .fetchAll()
                let expectedShared = all.playlists.map { playlist in
                    tracks(of: playlist).filter { isIn(other, $0) && $0.milliseconds > 100_000 }
                }
                #expect(shared.map(\.1) == expectedShared, "also in playlist \(other)")
                let keptByAlbum = expectedByAlbum.map(\.count).reduce(0, +)
                kept += keptByAlbum + expectedShared.map(\.count).reduce(0, +)
                dropped += all.pairs.count - keptByAlbum
            }
            // The filters kept some tracks, and the album filter left others out.
            #expect(kept > 0)
            #expect(dropped > 0)
        }
    }

    /// Relation filters around a junction level: on the roots above it, on a junction level
    /// below a direct one, and on a to-one level below a junction, compared with Swift.
    @Test func relationFiltersAroundAJunctionLoadMatchSwift() throws {
        try withChinook { db, all in
            func playlists(of track: ChinookTrack) -> [Int64] {
                all.pairs.filter { $0.trackId == track.trackId }.map(\.playlistId).sorted()
            }
            func tracks(of playlistID: Int64) -> [ChinookTrack] {
                all.tracks.filter { track in
                    all.pairs.contains { $0.playlistId == playlistID && $0.trackId == track.trackId }
                }
            }
            let bound = Int64(all.tracks.count / 4)
            // Albums, their tracks, and each track's playlists that hold a track below the bound.
            let shelves = try db.query(ChinookAlbum.self).order { $0.albumId }
                .including(all: ChinookTrack.self) {
                    $0.order { $0.trackId }
                        .including(all: ChinookPlaylist.self, through: ChinookPlaylistTrack.self) {
                            $0.where(any: ChinookPlaylistTrack.self) { $0.trackId < bound }.order {
                                $0.playlistId
                            }
                        }
                }
                .fetchAll()
            let holdingEarly = Set(all.pairs.filter { $0.trackId < bound }.map(\.playlistId))
            let expectedShelves = all.albums.map { album in
                all.tracks.filter { $0.albumId == album.albumId }.map { track in
                    playlists(of: track).filter(holdingEarly.contains)
                }
            }
            let loadedShelves = shelves.map { $0.1.map { $0.1.map(\.playlistId) } }
            let someKept = expectedShelves.joined().contains { !$0.isEmpty }
            // The filter leaves out some playlist a track is in.
            let someLeftOut = all.pairs.contains { !holdingEarly.contains($0.playlistId) }
            #expect(shelves.map(\.0) == all.albums)
            #expect(loadedShelves == expectedShelves)
            #expect(someKept)
            #expect(someLeftOut)

            // Playlists holding an early track (a filter on the roots), their tracks by artists below
            // 2 × limit, each with its album when the album's artist is below the limit.
            let artistLimit: Int64 = 8
            let credits = try db.query(ChinookPlaylist.self)
                .where(any: ChinookPlaylistTrack.self) { $0.trackId < bound }.order { $0.playlistId }
                .including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self) {
                    $0.where(ChinookAlbum.self) { $0.artistId < 2 * artistLimit }.order { $0.trackId }
                        .including(one: ChinookAlbum.self) {
                            $0.where(ChinookArtist.self) { $0.artistId < artistLimit }
                        }
                }
                .fetchAll()
            let expectedRoots = all.playlists.filter { holdingEarly.contains($0.playlistId) }
            let expectedCredits = expectedRoots.map { playlist in
                tracks(of: playlist.playlistId).compactMap { track -> (Int64, Int64?)? in
                    guard let album = all.albums.first(where: { $0.albumId == track.albumId }),
                        album.artistId < 2 * artistLimit
                    else { return nil }
                    return (track.trackId, album.artistId < artistLimit ? album.albumId : nil)
                }
            }
            let loadedTrackIDs = credits.map { $0.1.map(\.0.trackId) }
            let loadedAlbumIDs = credits.map { $0.1.map { $0.1?.albumId } }
            let expectedTrackIDs = expectedCredits.map { $0.map(\.0) }
            let expectedAlbumIDs = expectedCredits.map { $0.map(\.1) }
            // Some tracks come with their album, others with nil.
            let albumOrNil = Set(expectedAlbumIDs.joined().map { $0 == nil })
            #expect(credits.map(\.0) == expectedRoots)
            #expect(loadedTrackIDs == expectedTrackIDs)
            #expect(loadedAlbumIDs == expectedAlbumIDs)
            #expect(albumOrNil == [true, false])
        }
    }

    @Test func selfReferenceManagersAndReports() throws {
        try withChinook { db, all in
            let reports = try db.query(ChinookEmployee.self).order { $0.employeeId }
                .including(all: ChinookEmployee.self, via: \.reportsTo) { $0.order { $0.employeeId } }
                .fetchAll()
            let expectedReports = all.employees.map { manager in
                all.employees.filter { $0.reportsTo == manager.employeeId }
            }
            #expect(reports.map(\.1) == expectedReports)
            // Without via: the preferred direction of including(all:) is the reports.
            let implicit = try db.query(ChinookEmployee.self).order { $0.employeeId }
                .including(all: ChinookEmployee.self) { $0.order { $0.employeeId } }.fetchAll()
            #expect(implicit.map(\.1) == reports.map(\.1))
            let managers = try db.query(ChinookEmployee.self).order { $0.employeeId }
                .including(one: ChinookEmployee.self, via: \.reportsTo).fetchAll()
            let expectedManagers = all.employees.map { employee in
                all.employees.first { $0.employeeId == employee.reportsTo }
            }
            #expect(managers.map(\.1) == expectedManagers)
            #expect(managers[0].1 == nil)
        }
    }

    @Test func compositeKeys() throws {
        try withChinook { db, all in
            let loaded = try db.query(ChinookPlaylistTrack.self).order { [$0.playlistId, $0.trackId] }
                .including(all: ChinookPlaylistNote.self) { $0.order { $0.noteId } }.fetchAll()
            let sortedPairs = all.pairs.sorted { ($0.playlistId, $0.trackId) < ($1.playlistId, $1.trackId) }
            #expect(loaded.map(\.0) == sortedPairs)
            let expectedNotes = loaded.map(\.0).map { pair in
                all.notes.filter { $0.playlistId == pair.playlistId && $0.trackId == pair.trackId }
            }
            #expect(loaded.map(\.1) == expectedNotes)
            let someWithNotes = loaded.contains { !$0.1.isEmpty }
            #expect(someWithNotes)
            let back = try db.query(ChinookPlaylistNote.self).including(one: ChinookPlaylistTrack.self)
                .fetchAll()
            let eachWithItsPair = back.allSatisfy {
                $0.1?.playlistId == $0.0.playlistId && $0.1?.trackId == $0.0.trackId
            }
            #expect(eachWithItsPair)
            let noted = try db.query(ChinookPlaylistTrack.self).where(any: ChinookPlaylistNote.self) {
                $0.text != ""
            }
            .count()
            let notedPairs = Set(all.notes.map { [$0.playlistId, $0.trackId] }).count
            #expect(noted == notedPairs)
        }
    }

    @Test func emptyResults() throws {
        try withChinook { db, _ in
            let none = try db.query(ChinookArtist.self).where { $0.artistId > 1_000 }
                .including(all: ChinookAlbum.self).fetchAll()
            #expect(none.isEmpty)
            let lonely = try db.query(ChinookArtist.self).where { $0.artistId > 25 }.including(
                all: ChinookAlbum.self
            ).fetchAll()
            #expect(lonely.map(\.0.artistId) == [26, 27, 28, 29, 30])
            let allWithoutAlbums = lonely.allSatisfy { $0.1.isEmpty }
            #expect(allWithoutAlbums)
            let empty = try db.query(ChinookPlaylist.self).where { $0.playlistId == 8 }
                .including(all: ChinookTrack.self, through: ChinookPlaylistTrack.self).fetchAll()
            #expect(empty.count == 1 && empty[0].1.isEmpty)
        }
    }

    @Test func filtersAcrossRelationsMatchSwift() throws {
        try withChinook { db, all in
            var random = SeededGenerator(seed: 1_616)
            for _ in 0..<20 {
                let bound = Int.random(in: 60_000...600_000, using: &random)
                let artistLimit = Int64.random(in: 1...30, using: &random)
                // To-many: albums with a track longer than the bound.
                let albums = try db.query(ChinookAlbum.self).where(any: ChinookTrack.self) {
                    $0.milliseconds > bound
                }
                .order { $0.albumId }.fetchAll()
                let expectedAlbums = all.albums.filter { album in
                    all.tracks.contains { $0.albumId == album.albumId && $0.milliseconds > bound }
                }
                #expect(albums == expectedAlbums)
                // To-one: tracks whose album's artist is below a bound, composed with another where.
                let tracks = try db.query(ChinookTrack.self)
                    .where(ChinookAlbum.self) { $0.artistId < artistLimit }
                    .where { $0.unitPrice > 1 }
                    .order { $0.trackId }.fetchAll()
                let expectedTracks = all.tracks.filter { track in
                    track.unitPrice > 1
                        && all.albums.contains {
                            $0.albumId == track.albumId && $0.artistId < artistLimit
                        }
                }
                #expect(tracks == expectedTracks)
                // Negated, counted, tested for existence.
                let withoutLong = try db.query(ChinookArtist.self).where(any: ChinookAlbum.self) {
                    $0.albumId > 0
                }
                .where { !($0.artistId < artistLimit) }
                let expected = all.artists.filter { artist in
                    !(artist.artistId < artistLimit) && all.albums.contains { $0.artistId == artist.artistId }
                }
                #expect(try withoutLong.count() == expected.count)
                #expect(try withoutLong.exists() == !expected.isEmpty)
            }
            // Self-reference: employees whose manager lives in Calgary, managers of someone in Calgary.
            let managedFromCalgary = try db.query(ChinookEmployee.self)
                .where(ChinookEmployee.self, via: \.reportsTo) { $0.city == "Calgary" }.order {
                    $0.employeeId
                }.fetchAll()
            let expectedManaged = all.employees.filter { employee in
                all.employees.contains { $0.employeeId == employee.reportsTo && $0.city == "Calgary" }
            }
            #expect(managedFromCalgary == expectedManaged)
            let managingCalgary = try db.query(ChinookEmployee.self)
                .where(any: ChinookEmployee.self, via: \.reportsTo) { $0.city == "Calgary" }.order {
                    $0.employeeId
                }
                .fetchAll()
            let expectedManaging = all.employees.filter { manager in
                all.employees.contains { $0.reportsTo == manager.employeeId && $0.city == "Calgary" }
            }
            #expect(managingCalgary == expectedManaging)
        }
    }
}
