import Foundation
import LiteRecord
import Testing

// Schema evolution, the same scenarios on SQLite and PostgreSQL (SchemaParityTests.swift): a
// model that changes over time must find the same table, accept the same writes and refuse the
// same changes with the same error, on either backend.

/// The first version of a note: every property required.
struct EvolvingNoteV1: Model, Equatable {
    var id: Int64?
    var title: String
    var rating: Int
    static let schema = Schema<EvolvingNoteV1>(table: "evolving_notes")
}

/// A later version: `rating` became optional, `title` was removed.
struct EvolvingNoteV2: Model, Equatable {
    var id: Int64?
    var rating: Int?
    static let schema = Schema<EvolvingNoteV2>(table: "evolving_notes")
}

/// A later version that adds a required property without a default.
struct EvolvingNoteV3: Model, Equatable {
    var id: Int64?
    var title: String
    var rating: Int
    var weight: Double
    static let schema = Schema<EvolvingNoteV3>(table: "evolving_notes")
}

/// A later version that adds a required property with a default.
struct EvolvingNoteV4: Model, Equatable {
    var id: Int64?
    var title: String
    var rating: Int
    var weight: Double
    static let schema = Schema<EvolvingNoteV4>(table: "evolving_notes").defaultValue(1.5, for: \.weight)
}

/// A table name of 61 bytes whose two unique constraints' and two indexes' generated names pass
/// PostgreSQL's 63 bytes and differ only after it.
struct TournamentRegistration: Model, Equatable {
    var id: Int64?
    var emailAddress: String
    var emailAddressBackup: String
    var nicknameForTheLeaderboardDisplay: String
    var nicknameForTheLeaderboardDisplayAlternate: String
    static let schema = Schema<TournamentRegistration>(
        table: "user_account_registration_records_for_tournament_season_2026",
        unique: [\.emailAddress, \.emailAddressBackup],
        indexes: [[\.nicknameForTheLeaderboardDisplay], [\.nicknameForTheLeaderboardDisplayAlternate]])
}

/// A version of the note that makes its title unique.
struct EvolvingNoteV5: Model, Equatable {
    var id: Int64?
    var title: String
    var rating: Int
    static let schema = Schema<EvolvingNoteV5>(table: "evolving_notes", unique: [\.title])
}

/// A hostile table name: quotes, a keyword, SQL punctuation, multibyte letters; its generated index
/// names pass 63 bytes and must be cut between characters (59 bytes).
struct HostileNamed: Model, Equatable {
    var id: Int64?
    var first: String
    var second: String
    static let schema = Schema<HostileNamed>(
        table: "select \"naïve\" 表表表 -- ; drop table x; ééééééé", unique: [\.first, \.second])
}

enum SchemaParityChecks {
    /// A property made optional accepts nil, and a removed required property no longer blocks
    /// inserts; the old rows keep their values.
    static func optionalAndRemovedPropertiesAcceptNil(_ db: some ModelContext, _ backend: ParityBackend)
        throws
    {
        var old = EvolvingNoteV1(id: nil, title: "kept", rating: 4)
        try db.insert(&old)
        var new = EvolvingNoteV2(id: nil, rating: nil)
        try db.insert(&new)
        let notes = try db.fetchAll(EvolvingNoteV2.self)
        #expect(notes == [EvolvingNoteV2(id: old.id, rating: 4), new], "\(backend.name)")
        #expect(
            try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM evolving_notes WHERE title = \("kept")")
                == 1,
            "\(backend.name)")
        #expect(
            try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM evolving_notes WHERE title IS NULL") == 1,
            "\(backend.name)")
    }

    /// A required property added to a table is refused with the same `SchemaError` on both
    /// backends, naming the column and the fixes, and nothing changes; with a default it is added
    /// and the old rows read the default.
    static func newRequiredPropertyNeedsADefault(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var old = EvolvingNoteV1(id: nil, title: "old", rating: 1)
        try db.insert(&old)
        var heavy = EvolvingNoteV3(id: nil, title: "new", rating: 2, weight: 3)
        let error = try #require(throws: SchemaError.self, "\(backend.name)") { try db.insert(&heavy) }
        #expect(
            error.message
                == "cannot add column weight to evolving_notes: EvolvingNoteV3.weight is new and not optional, "
                + "so existing rows need a value; declare one with .defaultValue(_:for:) in the schema, "
                + "or make the property optional", "\(backend.name)")
        #expect(try db.fetchAll(EvolvingNoteV1.self) == [old], "\(backend.name)")
        var defaulted = EvolvingNoteV4(id: nil, title: "new", rating: 2, weight: 3)
        try db.insert(&defaulted)
        #expect(
            try db.fetchAll(EvolvingNoteV4.self)
                == [EvolvingNoteV4(id: old.id, title: "old", rating: 1, weight: 1.5), defaulted],
            "\(backend.name)")
    }

    /// Every unique constraint of a table with a long name is enforced, each on its own; every
    /// declared index exists.
    static func longNamedConstraintsAreEnforced(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var first = TournamentRegistration(
            id: nil, emailAddress: "a@x", emailAddressBackup: "b@x", nicknameForTheLeaderboardDisplay: "n",
            nicknameForTheLeaderboardDisplayAlternate: "m")
        try db.insert(&first)
        var sameEmail = first
        sameEmail.id = nil
        sameEmail.emailAddressBackup = "other@x"
        expectError(.constraintUnique) { try db.insert(&sameEmail) }
        var sameBackup = first
        sameBackup.id = nil
        sameBackup.emailAddress = "other@x"
        expectError(.constraintUnique) { try db.insert(&sameBackup) }
        #expect(try db.fetchAll(TournamentRegistration.self) == [first], "\(backend.name)")
    }

    /// A unique constraint added to a table whose rows hold duplicates is refused with the same
    /// `SchemaError` on both backends, and the rows stay as they were.
    static func newUniqueOverDuplicatesIsRefused(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var first = EvolvingNoteV1(id: nil, title: "same", rating: 1)
        var second = EvolvingNoteV1(id: nil, title: "same", rating: 2)
        try db.insert(&first)
        try db.insert(&second)
        var third = EvolvingNoteV5(id: nil, title: "other", rating: 3)
        let error = try #require(throws: SchemaError.self, "\(backend.name)") { try db.insert(&third) }
        #expect(
            error.message.hasPrefix(
                "cannot add UNIQUE(title) to evolving_notes: existing rows hold duplicate values"))
        #expect(error.message.hasSuffix("; remove the duplicates first"), "\(backend.name)")
        #expect(try db.fetchAll(EvolvingNoteV1.self) == [first, second], "\(backend.name)")
    }

    /// A table name with quotes, a keyword, SQL punctuation and multibyte letters: its unique
    /// constraints are enforced, each on its own.
    static func hostileTableNameKeepsItsConstraints(_ db: some ModelContext, _ backend: ParityBackend) throws
    {
        var row = HostileNamed(id: nil, first: "a", second: "b")
        try db.insert(&row)
        var sameFirst = HostileNamed(id: nil, first: "a", second: "c")
        expectError(.constraintUnique) { try db.insert(&sameFirst) }
        var sameSecond = HostileNamed(id: nil, first: "c", second: "b")
        expectError(.constraintUnique) { try db.insert(&sameSecond) }
        #expect(try db.fetchAll(HostileNamed.self) == [row], "\(backend.name)")
    }
}
