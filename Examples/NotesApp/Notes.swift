import Foundation
import LiteRecord

/// A request the database cannot satisfy ("no note #7"): printed, exit code 1.
struct NotesError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The app's commands, on an open and migrated database. Each prints its result.
///
/// Written once over `ModelDatabase`: the same code runs on a SQLite `Database` and on a
/// `PostgresDatabase`, with no branch on the backend.
struct Notes<DB: ModelDatabase> {
    let db: DB

    /// Adds a note to a notebook, creating the notebook on first use.
    func add(title: String, body: String, tags: [String], notebook name: String) throws {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw UsageError("a note needs a title") }
        // One transaction: the notebook is never created without its note.
        let (note, notebook) = try db.transaction { tx in
            var notebook = Notebook(id: nil, name: name)
            if let existing = try tx.query(Notebook.self).where({ $0.name == name }).fetchOne() {
                notebook = existing
            } else {
                try tx.insert(&notebook)  // sets notebook.id
            }
            guard let notebookID = notebook.id else { throw NotesError("notebook \(name) has no id") }
            var note = Note(
                id: nil, notebookID: notebookID, title: title, body: body, tags: Self.unique(tags),
                createdAt: Date(), pinned: false)
            try tx.insert(&note)
            return (note, notebook)
        }
        print("Added note #\(note.id ?? 0) to \(notebook.name).")
    }

    /// Lists notes, pinned first, then newest first, optionally of one notebook or tag.
    func list(notebook name: String?, tag: String?) throws {
        var query = db.query(Note.self).order { [$0.pinned.descending, $0.createdAt.descending] }
        if let name {
            // A filter on the related notebook: no join to write, no notebook id to look up.
            query = query.where(Notebook.self) { $0.name == name }
        }
        if let tag {
            query = query.where { $0.tags.contains(tag) }  // inside the JSON array
        }
        let notes = try query.including(one: Notebook.self).fetchAll()
        if notes.isEmpty { print("No notes.") }
        for (note, notebook) in notes {
            print(Self.line(note, notebook: notebook?.name))
        }
    }

    /// Full-text search over titles and bodies, best match first, with the matching words marked.
    func search(_ text: String) throws {
        let results = try db.query(Note.self).matching(text).limit(20)
            .fetchAll(withSnippetsOf: \.body, style: SnippetStyle(before: "[", after: "]"))
        if results.isEmpty { print("No notes match \"\(text)\".") }
        for (note, snippet) in results {
            print(Self.line(note, notebook: nil))
            print("      \(snippet)")
        }
    }

    /// Every notebook with its notes: two queries in all, however many notebooks there are.
    func notebooks() throws {
        let shelves = try db.query(Notebook.self).order { $0.name }
            .including(all: Note.self) { $0.order { [$0.pinned.descending, $0.createdAt.descending] } }
            .fetchAll()
        if shelves.isEmpty { print("No notebooks.") }
        for (notebook, notes) in shelves {
            print("\(notebook.name) (\(notes.count) note\(notes.count == 1 ? "" : "s"))")
            for note in notes { print("  " + Self.line(note, notebook: nil)) }
        }
    }

    /// Adds tags to a note.
    func tag(_ id: Int64, with tags: [String]) throws {
        var note = try existingNote(id)
        note.tags = Self.unique(note.tags + tags)
        try db.update(note, columns: [\.tags])  // writes only that column
        print(Self.line(note, notebook: nil))
    }

    /// Pins or unpins a note (pinned notes come first).
    func pin(_ id: Int64, _ pinned: Bool) throws {
        var note = try existingNote(id)
        note.pinned = pinned
        try db.update(note, columns: [\.pinned])
        print(Self.line(note, notebook: nil))
    }

    /// Deletes a note.
    func delete(_ id: Int64) throws {
        guard try db.delete(Note.self, id: id) else { throw NotesError("no note #\(id)") }
        print("Deleted note #\(id).")
    }

    /// Deletes a notebook; the foreign key's `ON DELETE CASCADE` deletes its notes.
    func deleteNotebook(named name: String) throws {
        let count = try db.transaction { tx in
            guard let notebook = try tx.query(Notebook.self).where({ $0.name == name }).fetchOne() else {
                throw NotesError("no notebook named \"\(name)\"")
            }
            let count = try tx.query(Note.self).where(Notebook.self) { $0.name == name }.count()
            try tx.delete(notebook)
            return count
        }
        print("Deleted notebook \(name) and its \(count) note\(count == 1 ? "" : "s").")
    }

    private func existingNote(_ id: Int64) throws -> Note {
        guard let note = try db.find(Note.self, id: id) else { throw NotesError("no note #\(id)") }
        return note
    }

    /// `#3 * Title  [Work]  #swift #linux`: the star marks a pinned note.
    private static func line(_ note: Note, notebook: String?) -> String {
        var line = "#\(note.id ?? 0) \(note.pinned ? "*" : " ") \(note.title)"
        if let notebook { line += "  [\(notebook)]" }
        if !note.tags.isEmpty { line += "  " + note.tags.map { "#\($0)" }.joined(separator: " ") }
        return line
    }

    /// Tags without blanks or repeats, in the order first given.
    private static func unique(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
