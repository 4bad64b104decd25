import Foundation
import LiteRecord

// The Chinook-shaped models and data of the SQLite relation tests
// (Tests/LiteRecordTests/Relations/ChinookFixture.swift), written through `ModelContext` so that
// both backends hold the same rows: Artist → Album → Track (a NULL album key), Playlist ↔ Track
// through PlaylistTrack (an empty playlist), a note keyed by PlaylistTrack's composite key, and
// Employee.ReportsTo → Employee.

struct ChinookArtist: Model, Equatable {
    var artistId: Int64
    var name: String?
    static let schema = Schema<ChinookArtist>(table: "Artist", primaryKey: \.artistId).columnNaming(
        .pascalCase)
}

struct ChinookAlbum: Model, Equatable {
    var albumId: Int64
    var title: String
    var artistId: Int64
    static let schema = Schema<ChinookAlbum>(table: "Album", primaryKey: \.albumId).columnNaming(.pascalCase)
        .foreignKey(\.artistId, references: ChinookArtist.self)
}

struct ChinookTrack: Model, Equatable {
    var trackId: Int64
    var name: String
    var albumId: Int64?
    var milliseconds: Int
    var unitPrice: Double
    static let schema = Schema<ChinookTrack>(table: "Track", primaryKey: \.trackId).columnNaming(.pascalCase)
        .foreignKey(\.albumId, references: ChinookAlbum.self)
}

struct ChinookPlaylist: Model, Equatable {
    var playlistId: Int64
    var name: String?
    static let schema = Schema<ChinookPlaylist>(table: "Playlist", primaryKey: \.playlistId)
        .columnNaming(.pascalCase)
}

struct ChinookPlaylistTrack: Model, Equatable {
    var playlistId: Int64
    var trackId: Int64
    static let schema = Schema<ChinookPlaylistTrack>(
        table: "PlaylistTrack", primaryKey: [\.playlistId, \.trackId]
    )
    .columnNaming(.pascalCase)
    .foreignKey(\.playlistId, references: ChinookPlaylist.self)
    .foreignKey(\.trackId, references: ChinookTrack.self)
}

struct ChinookPlaylistNote: Model, Equatable {
    var noteId: Int64
    var playlistId: Int64
    var trackId: Int64
    var text: String
    static let schema = Schema<ChinookPlaylistNote>(table: "PlaylistNote", primaryKey: \.noteId)
        .columnNaming(.pascalCase)
        .foreignKey([\.playlistId, \.trackId], references: ChinookPlaylistTrack.self)
}

struct ChinookEmployee: Model, Equatable {
    var employeeId: Int64
    var lastName: String
    var title: String?
    var reportsTo: Int64?
    var city: String?
    static let schema = Schema<ChinookEmployee>(table: "Employee", primaryKey: \.employeeId)
        .columnNaming(.pascalCase)
        .foreignKey(\.reportsTo, references: ChinookEmployee.self)
}

/// Every row of the fixture, as inserted: what the checks compute their expectations from.
struct ChinookData {
    var artists: [ChinookArtist] = []
    var albums: [ChinookAlbum] = []
    var tracks: [ChinookTrack] = []
    var playlists: [ChinookPlaylist] = []
    var pairs: [ChinookPlaylistTrack] = []
    var notes: [ChinookPlaylistNote] = []
    var employees: [ChinookEmployee] = []

    /// Seeded random rows of the same shape as the SQLite fixture's, inserted through `db`.
    static func make(on db: some ModelContext, seed: UInt64 = 16) throws -> ChinookData {
        var random = SplitMix64(state: seed)
        var data = ChinookData()
        for artist in Int64(1)...30 {
            // Artist 7 has no name (NULL); artists above 25 have no album.
            data.artists.append(
                ChinookArtist(artistId: artist, name: artist == 7 ? nil : "Artist '\(artist)'"))
        }
        var album: Int64 = 0
        var track: Int64 = 0
        for artist in Int64(1)...25 {
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                album += 1
                data.albums.append(ChinookAlbum(albumId: album, title: "Album \(album)", artistId: artist))
                for _ in 0..<Int.random(in: 0...6, using: &random) {
                    track += 1
                    data.tracks.append(
                        ChinookTrack(
                            trackId: track, name: "Track \(track)", albumId: album,
                            milliseconds: Int.random(in: 60_000...600_000, using: &random),
                            unitPrice: [0.99, 1.99][Int.random(in: 0...1, using: &random)]))
                }
            }
        }
        for _ in 0..<5 {  // tracks on no album: a NULL key
            track += 1
            data.tracks.append(
                ChinookTrack(
                    trackId: track, name: "Single \(track)", albumId: nil, milliseconds: 200_000,
                    unitPrice: 0.99))
        }
        var note: Int64 = 0
        for playlist in Int64(1)...8 {
            data.playlists.append(ChinookPlaylist(playlistId: playlist, name: "Playlist \(playlist)"))
            guard playlist < 8 else { continue }  // playlist 8 is empty
            let chosen = Set(
                (0..<Int.random(in: 0...15, using: &random)).map { _ in
                    Int64.random(in: 1...track, using: &random)
                })
            for trackID in chosen.sorted() {
                data.pairs.append(ChinookPlaylistTrack(playlistId: playlist, trackId: trackID))
                if Bool.random(using: &random) {
                    note += 1
                    data.notes.append(
                        ChinookPlaylistNote(
                            noteId: note, playlistId: playlist, trackId: trackID,
                            text: "note \(playlist)/\(trackID)"))
                }
            }
        }
        let cities = ["Calgary", "Edmonton", "Lethbridge"]
        data.employees.append(
            ChinookEmployee(
                employeeId: 1, lastName: "Adams", title: "General Manager", reportsTo: nil, city: "Edmonton"))
        for employee in Int64(2)...12 {
            data.employees.append(
                ChinookEmployee(
                    employeeId: employee, lastName: "E\(employee)", title: "Staff",
                    reportsTo: Int64.random(in: 1..<min(employee, 5), using: &random),
                    city: cities[Int.random(in: 0..<3, using: &random)]))
        }
        try data.insert(on: db)
        return data
    }

    private func insert(on db: some ModelContext) throws {
        func all<M: Model>(_ models: [M]) throws {
            for var model in models { try db.insert(&model) }
        }
        try all(artists)
        try all(albums)
        try all(tracks)
        try all(playlists)
        try all(pairs)
        try all(notes)
        try all(employees)
    }
}
