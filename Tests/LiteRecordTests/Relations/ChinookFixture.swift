import Foundation
import LiteRecord
import LiteRecordTestSupport

// Models of a Chinook-shaped database written by another tool: PascalCase tables and columns,
// foreign keys declared in the SQL, and the relations declared again on the models' schemas.

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

/// A note on one track of one playlist: a foreign key over the composite key of PlaylistTrack.
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

/// Builds the database with the `sqlite3` shell, as another tool would, from seeded random data.
enum ChinookFixture {
    static func make(in directory: TemporaryDirectory, seed: UInt64 = 16) throws -> Database {
        let path = directory.file("chinook.sqlite")
        var random = SeededGenerator(seed: seed)
        var script = """
            PRAGMA foreign_keys = ON;
            CREATE TABLE [Artist] ([ArtistId] INTEGER NOT NULL, [Name] NVARCHAR(120),
                CONSTRAINT [PK_Artist] PRIMARY KEY ([ArtistId]));
            CREATE TABLE [Album] ([AlbumId] INTEGER NOT NULL, [Title] NVARCHAR(160) NOT NULL,
                [ArtistId] INTEGER NOT NULL, CONSTRAINT [PK_Album] PRIMARY KEY ([AlbumId]),
                FOREIGN KEY ([ArtistId]) REFERENCES [Artist] ([ArtistId]));
            CREATE INDEX [IFK_AlbumArtistId] ON [Album] ([ArtistId]);
            CREATE TABLE [Track] ([TrackId] INTEGER NOT NULL, [Name] NVARCHAR(200) NOT NULL, [AlbumId] INTEGER,
                [Milliseconds] INTEGER NOT NULL, [UnitPrice] NUMERIC(10,2) NOT NULL,
                CONSTRAINT [PK_Track] PRIMARY KEY ([TrackId]),
                FOREIGN KEY ([AlbumId]) REFERENCES [Album] ([AlbumId]));
            CREATE INDEX [IFK_TrackAlbumId] ON [Track] ([AlbumId]);
            CREATE TABLE [Playlist] ([PlaylistId] INTEGER NOT NULL, [Name] NVARCHAR(120),
                CONSTRAINT [PK_Playlist] PRIMARY KEY ([PlaylistId]));
            CREATE TABLE [PlaylistTrack] ([PlaylistId] INTEGER NOT NULL, [TrackId] INTEGER NOT NULL,
                CONSTRAINT [PK_PlaylistTrack] PRIMARY KEY ([PlaylistId], [TrackId]),
                FOREIGN KEY ([PlaylistId]) REFERENCES [Playlist] ([PlaylistId]),
                FOREIGN KEY ([TrackId]) REFERENCES [Track] ([TrackId]));
            CREATE INDEX [IFK_PlaylistTrackTrackId] ON [PlaylistTrack] ([TrackId]);
            CREATE TABLE [PlaylistNote] ([NoteId] INTEGER PRIMARY KEY, [PlaylistId] INTEGER NOT NULL,
                [TrackId] INTEGER NOT NULL, [Text] TEXT NOT NULL,
                FOREIGN KEY ([PlaylistId], [TrackId]) REFERENCES [PlaylistTrack] ([PlaylistId], [TrackId]));
            CREATE INDEX [IFK_PlaylistNote] ON [PlaylistNote] ([PlaylistId], [TrackId]);
            CREATE TABLE [Employee] ([EmployeeId] INTEGER NOT NULL, [LastName] NVARCHAR(20) NOT NULL,
                [Title] NVARCHAR(30), [ReportsTo] INTEGER, [City] NVARCHAR(40),
                CONSTRAINT [PK_Employee] PRIMARY KEY ([EmployeeId]),
                FOREIGN KEY ([ReportsTo]) REFERENCES [Employee] ([EmployeeId]));
            CREATE INDEX [IFK_EmployeeReportsTo] ON [Employee] ([ReportsTo]);
            BEGIN;

            """
        let artists = 30
        for artist in 1...artists {
            // Artist 7 has a NULL name; artists above 25 have no album.
            script +=
                "INSERT INTO Artist VALUES (\(artist), \(artist == 7 ? "NULL" : "'Artist ''\(artist)'''"));\n"
        }
        var album = 0
        var track = 0
        for artist in 1...25 {
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                album += 1
                script += "INSERT INTO Album VALUES (\(album), 'Album \(album)', \(artist));\n"
                for _ in 0..<Int.random(in: 0...6, using: &random) {
                    track += 1
                    let length = Int.random(in: 60_000...600_000, using: &random)
                    let price = [0.99, 1.99][Int.random(in: 0...1, using: &random)]
                    script +=
                        "INSERT INTO Track VALUES (\(track), 'Track \(track)', \(album), \(length), \(price));\n"
                }
            }
        }
        // Tracks on no album (a NULL key).
        for _ in 0..<5 {
            track += 1
            script += "INSERT INTO Track VALUES (\(track), 'Single \(track)', NULL, 200000, 0.99);\n"
        }
        for playlist in 1...8 {
            script += "INSERT INTO Playlist VALUES (\(playlist), 'Playlist \(playlist)');\n"
            // Playlist 8 is empty.
            guard playlist < 8 else { continue }
            let chosen = Set(
                (0..<Int.random(in: 0...15, using: &random)).map { _ in
                    Int.random(in: 1...track, using: &random)
                })
            for trackID in chosen.sorted() {
                script += "INSERT INTO PlaylistTrack VALUES (\(playlist), \(trackID));\n"
                if Bool.random(using: &random) {
                    script +=
                        "INSERT INTO PlaylistNote (PlaylistId, TrackId, Text) VALUES (\(playlist), \(trackID), 'note \(playlist)/\(trackID)');\n"
                }
            }
        }
        let cities = ["Calgary", "Edmonton", "Lethbridge"]
        script += "INSERT INTO Employee VALUES (1, 'Adams', 'General Manager', NULL, 'Edmonton');\n"
        for employee in 2...12 {
            let manager = Int.random(in: 1..<min(employee, 5), using: &random)
            let city = cities[Int.random(in: 0..<3, using: &random)]
            script +=
                "INSERT INTO Employee VALUES (\(employee), 'E\(employee)', 'Staff', \(manager), '\(city)');\n"
        }
        script += "COMMIT;\n"
        try runShell(path: path, script: script)
        return try Database(path: path)
    }

    private static func runShell(path: String, script: String) throws {
        let process = Process.child(
            running: URL(fileURLWithPath: "/usr/bin/sqlite3"), arguments: ["-bail", path])
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "sqlite3 exited with \(process.terminationStatus)")
        }
    }
}

private struct FixtureError: Error { let message: String }
