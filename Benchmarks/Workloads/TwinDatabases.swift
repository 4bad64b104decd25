import CSQLite
import LiteRecord

/// The fixture of a read workload: one database per side (in memory unless the workload asks
/// for files), holding the same table.
///
/// Both sides create the table with the same SQL and insert the same rows with the same
/// `INSERT` and the same bound values, each in one transaction. A fingerprint query (counts,
/// sums, lengths and storage classes) then must give the same text on both sides, so a ratio
/// never compares reads of different data. Built once per run in the workload's setup; the
/// rounds only read.
struct TwinDatabases {
    /// The C side's connection (`:memory:` or a file, opened as ``CDatabase`` opens any database).
    let c: CDatabase
    /// LiteRecord's database (`Database(.inMemory)`, or a file with its pool of readers).
    let literecord: Database

    /// Creates and fills both databases.
    ///
    /// - Parameters:
    ///   - createTable: The `CREATE TABLE` statement.
    ///   - insert: An `INSERT` with one `?` per value of a row.
    ///   - rows: The rows' values; integers, reals and text only.
    ///   - fingerprint: A query returning one text value that summarizes the table.
    ///   - cSite: Where the C side's database lives.
    ///   - literecordSite: Where LiteRecord's database lives.
    /// - Throws: ``CBaselineError``, LiteRecord's errors, or ``FixtureError`` when a value is
    ///   not supported or the fingerprints differ.
    init(
        createTable: String, insert: String, rows: [[DatabaseValue]], fingerprint: String,
        cSite: DatabaseSite = .memory, literecordSite: DatabaseSite = .memory
    ) throws {
        c = try cSite.openC()
        try c.execute(createTable)
        try c.execute("BEGIN")
        let statement = try c.prepare(insert)
        for row in rows {
            for (offset, value) in row.enumerated() {
                try Self.bind(value, at: Int32(offset + 1), to: statement)
            }
            try statement.run()
            try statement.reset()
        }
        try c.execute("COMMIT")

        literecord = try literecordSite.openLiteRecord()
        try literecord.execute(sql: SQL(createTable))
        try literecord.transaction { tx in
            for row in rows {
                try tx.execute(sql: insert, arguments: StatementArguments(positional: row))
            }
        }

        let cFingerprint = try c.text(fingerprint)
        let literecordFingerprint = try literecord.fetchOne(String.self, sql: SQL(fingerprint))
        guard let cFingerprint, cFingerprint == literecordFingerprint else {
            throw FixtureError(
                description: "the two sides hold different data: C \(cFingerprint ?? "NULL"), "
                    + "LiteRecord \(literecordFingerprint ?? "NULL")")
        }
    }

    private static func bind(_ value: DatabaseValue, at index: Int32, to statement: CStatement) throws {
        switch value {
        case .integer(let integer): try statement.bind(integer, at: index)
        case .real(let real): try statement.bind(real, at: index)
        case .text(let text): try statement.bind(text, at: index)
        case .null, .blob:
            throw FixtureError(description: "TwinDatabases stores integers, reals and text, not \(value)")
        }
    }
}

/// A fixture that cannot be built, or a round whose result is not what the fixture expects.
struct FixtureError: Error, CustomStringConvertible {
    let description: String
}
