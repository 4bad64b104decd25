import Foundation
import LiteRecord
import Testing

// `savepoint` on both backends: outside a transaction it is one, committed when the body
// returns; inside, a body that throws rolls back to it and the transaction goes on; savepoints
// nest, reuse names, and any name works.

struct SavepointNote: Model, Equatable {
    var id: Int64?
    var text: String
    static let schema = Schema<SavepointNote>(table: "savepoint_notes")
}

private struct Undo: Error {}

enum SavepointParityChecks {
    static func savepoints(_ db: some ModelContext, _ backend: ParityBackend) throws {
        func note(_ text: String, in db: some ModelContext) throws {
            var note = SavepointNote(id: nil, text: text)
            try db.insert(&note)
        }
        func texts() throws -> [String] {
            try db.fetchAll(SavepointNote.self).map(\.text).sorted()
        }
        try db.savepoint("outer") { try note("committed alone", in: $0) }
        #expect(throws: Undo.self, "\(backend.name)") {
            try db.savepoint(nil) { sp in
                try note("rolled back alone", in: sp)
                throw Undo()
            }
        }
        #expect(try texts() == ["committed alone"], "\(backend.name)")

        try db.transaction { tx in
            try note("before", in: tx)
            #expect(throws: Undo.self, "\(backend.name)") {
                try tx.savepoint("inner") { sp in
                    try note("undone", in: sp)
                    throw Undo()
                }
            }
            try tx.savepoint("same") { outer in
                try note("kept", in: outer)
                // A failing statement inside: PostgreSQL aborts the transaction unless the
                // savepoint's body throws, which rolls back to it (SQLite's rule is looser).
                #expect(throws: DatabaseError.self, "\(backend.name)") {
                    try outer.savepoint("same") { inner in
                        try note("undone too", in: inner)
                        try inner.execute(sql: "INSERT INTO no_such_table VALUES (1)")
                    }
                }
            }
            try tx.savepoint(#"x"; DROP TABLE savepoint_notes; --"#) { try note("after", in: $0) }
        }
        #expect(try texts() == ["after", "before", "committed alone", "kept"], "\(backend.name)")
    }
}
