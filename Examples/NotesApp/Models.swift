import Foundation
import LiteRecord

/// A named group of notes: "Work", "Ideas". Deleting a notebook deletes its notes.
struct Notebook: Model, Equatable {
    var id: Int64?
    var name: String

    static let schema = Schema<Notebook>(table: "notebooks", unique: [\.name])
}

/// One note. Tags are a plain `[String]`, stored as JSON text and queried with `contains`.
struct Note: Model, Equatable {
    var id: Int64?
    var notebookID: Int64
    var title: String
    var body: String
    var tags: [String]
    var createdAt: Date
    /// Added in version 2 of the app (see `NotesMigrations.swift`).
    var pinned: Bool

    static let schema = Schema<Note>(table: "notes")
        // The relation `including(all: Note.self)` follows, and the cascade on delete.
        .foreignKey(\.notebookID, references: Notebook.self, onDelete: .cascade)
        // An FTS5 index over title and body, kept in sync by triggers on every write.
        .fullTextSearch(on: [\.title, \.body])
}
