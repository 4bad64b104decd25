import Foundation
import LiteRecord
import LiteRecordCLI
import Testing

/// The pieces of `generate`: names, types chosen from declared types and stored values, and
/// the schema text (foreign keys included, behind their flag).
@Suite struct ModelGenerationUnitTests {
    @Test(arguments: [
        ("OrderID", "orderID"), ("ID", "id"), ("URLPath", "urlPath"), ("first_name", "firstName"),
        ("Unit Price", "unitPrice"), ("2nd", "column2nd"), ("default", "`default`"), ("self", "selfValue"),
        ("schema", "schemaValue"), ("café", "cafe"), ("Größe", "grosse"), ("it's", "its"), ("", "column"),
        ("名前", "u540DU524D"), ("ALLCAPS", "allcaps"), ("a-b c", "aBC"),
    ])
    func propertyNames(column: String, property: String) {
        #expect(SwiftNaming.propertyName(column) == property)
    }

    @Test(arguments: [
        ("order details", "OrderDetails"), ("Model", "ModelRecord"), ("2019 sales", "Table2019Sales"),
        ("Größe", "Grosse"), ("Quote\"Table", "QuoteTable"), ("", "Table"), ("date", "DateRecord"),
    ])
    func typeNames(table: String, type: String) {
        #expect(SwiftNaming.typeName(table) == type)
    }

    /// Any name gives an ASCII identifier that starts with a letter (or is a keyword in
    /// backticks), so the generated source compiles and passes the lint.
    @Test func randomNamesBecomeValidIdentifiers() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "a", "Z", "_", " ", "-", "'", "\"", "\\", "é", "ß", "名", "😀", "0", "9", "id", "ID", "class",
            "self", "\t",
            "\u{301}", "ǅ", "Ω",
        ]
        for _ in 0..<5000 {
            let name = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }
            .joined()
            for identifier in [SwiftNaming.propertyName(name), SwiftNaming.typeName(name)] {
                let bare = identifier.hasPrefix("`") ? String(identifier.dropFirst().dropLast()) : identifier
                #expect(
                    !bare.isEmpty && bare.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) },
                    "\(name) → \(identifier)")
                #expect(bare.first?.isLetter == true, "\(name) → \(identifier)")
            }
        }
    }

    /// Letters that do not fold to ASCII are spelled out, each its own way.
    @Test func spelledOutLettersInNames() {
        #expect(SwiftNaming.typeName("æ ø œ Æ Ø Œ đ ð Đ Ð ł Ł þ Þ") == "AeOOeAEOOEDDDDLLThTh")
        #expect(SwiftNaming.typeName("straße") == "Strasse")
    }

    /// SQLite's affinity rules, applied in their order (https://sqlite.org/datatype3.html
    /// §3.1 and the examples of §3.1.1).
    @Test(
        arguments: [
            ("INT", Affinity.integer), ("integer", .integer), ("UNSIGNED BIG INT", .integer),
            ("INT8", .integer),
            ("CHARINT", .integer), ("FLOATING POINT", .integer), ("CHARACTER(20)", .text),
            ("varchar(255)", .text), ("NCHAR(55)", .text), ("CLOB", .text), ("TEXT", .text),
            ("BLOBTEXT", .text),
            ("BLOB", .blob), ("", .blob), ("REAL BLOB", .blob), ("REAL", .real), ("DOUBLE PRECISION", .real),
            ("FLOAT", .real), ("NUMERIC", .numeric), ("DECIMAL(10,5)", .numeric), ("BOOLEAN", .numeric),
            ("DATETIME", .numeric), ("STRING", .numeric), ("JSON", .numeric),
        ] as [(String, Affinity)])
    func affinityOfDeclaredTypes(declared: String, expected: Affinity) {
        #expect(Affinity(declaredType: declared) == expected)
    }

    @Test(
        arguments: [
            ("NUMERIC", StoredClasses([.integer, .real]), SwiftColumnType.double),
            ("NUMERIC", [.integer], .double),
            ("INTEGER", [.integer], .int),
            ("INTEGER", [.integer, .real], .double),
            ("BOOLEAN", [.integer], .bool),
            ("TEXT", [.text], .string),
            ("TEXT", [.text, .integer], .storedValue),
            ("DATETIME", [.text], .date),
            ("", [], .storedValue),
            ("BLOB", [], .data),
            ("BLOB", [.blob, .text], .data),
            ("VARCHAR(10)", [], .string),
            ("DECIMAL(10,2)", [], .double),
        ] as [(String, StoredClasses, SwiftColumnType)])
    func typesFromDeclaredTypesAndData(declared: String, classes: StoredClasses, expected: SwiftColumnType) {
        #expect(
            ColumnTypeInference.swiftType(
                declaredType: declared, classes: classes, onlyZeroAndOne: true, textParsesAsDates: true)
                == expected)
    }

    @Test func datesAreDatesOnlyWhenEveryValueParses() {
        #expect(
            ColumnTypeInference.swiftType(
                declaredType: "DATE", classes: .text, onlyZeroAndOne: true, textParsesAsDates: false)
                == .string)
        #expect(
            ColumnTypeInference.swiftType(
                declaredType: "TEXT", classes: .text, onlyZeroAndOne: true, textParsesAsDates: true)
                == .string)
        #expect(
            ColumnTypeInference.swiftType(
                declaredType: "BOOL", classes: .integer, onlyZeroAndOne: false, textParsesAsDates: true)
                == .int)
    }

    /// Differential: random declared types and random stored values (every storage class,
    /// dates that parse and that do not); the Swift type chosen reads every stored value.
    @Test func chosenTypeReadsEveryStoredValue() throws {
        var generator = SystemRandomNumberGenerator()
        let declaredTypes = [
            "INTEGER", "INT", "REAL", "NUMERIC", "DECIMAL(5,2)", "TEXT", "VARCHAR(9)", "BLOB", "", "DATE",
            "DATETIME", "BOOLEAN", "JSON",
        ]
        let values: [DatabaseValue] = [
            .integer(0), .integer(1), .integer(-7), .integer(Int64.max), .real(2.5), .real(-0.0), .text("x"),
            .text(""),
            .text("2024-05-17"), .text("1996-07-04 00:00:00.000"), .text("2024-13-01"), .text("12"),
            .blob(Data([0, 255])),
            .blob(Data()), .null,
        ]
        let db = try Database(.inMemory)
        for round in 0..<300 {
            let declared = declaredTypes.randomElement(using: &generator)!
            let table = "t\(round)"
            try db.execute(sql: SQL("CREATE TABLE \(table) (v \(declared))" as String))
            let stored = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                values.randomElement(using: &generator)!
            }
            for value in stored { try db.execute(sql: "INSERT INTO \(identifier: table) VALUES (\(value))") }
            let description = try #require(
                try DatabaseDescription.read(from: db, countingRows: false).tables.first { $0.name == table })
            #expect(description.columns.map(\.declaredType) == [declared])
            let type = try #require(try db.read { try ColumnTypeInference.infer(description, on: $0) }.first)
            // What SQLite actually stored (affinity may have converted the value).
            let read = try db.fetchAll(Row.self, sql: SQL("SELECT v FROM \(table)" as String)).map {
                try $0.value(at: 0)
            }
            for value in read where !value.isNull {
                #expect(Self.reads(type, value), "\(declared) \(read) → \(type) fails on \(value)")
            }
            try db.execute(sql: "DROP TABLE \(identifier: table)")  // each round describes its table alone
        }
    }

    private static func reads(_ type: SwiftColumnType, _ value: DatabaseValue) -> Bool {
        switch type {
        case .int: (try? Int.fromDatabaseValue(value)) != nil
        case .int64: (try? Int64.fromDatabaseValue(value)) != nil
        case .double: (try? Double.fromDatabaseValue(value)) != nil
        case .bool: (try? Bool.fromDatabaseValue(value)) != nil
        case .string: (try? String.fromDatabaseValue(value)) != nil
        case .date: (try? Date.fromDatabaseValue(value)) != nil
        case .data: (try? Data.fromDatabaseValue(value)) != nil
        case .storedValue: true
        }
    }

    // MARK: - Schema text

    /// The models `generate` makes of `authors` and of `books`, whose `author_id` has the
    /// foreign keys `constraints` declares.
    private func authorsAndBooks(_ constraints: String) throws -> [GeneratedModel] {
        let db = try Database(.inMemory)
        let script = """
            CREATE TABLE authors (id INTEGER PRIMARY KEY);
            CREATE TABLE books (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL, \(constraints));
            """
        try db.execute(sql: SQL(script))
        let models = try GenerateCommand.generate(from: db, tables: [])
        #expect(models.map(\.typeName) == ["Authors", "Books"])
        #expect(
            models.last?.properties.map { "\($0.name): \($0.declaredType)" } == [
                "id: Int64?", "authorId: Int",
            ])
        return models
    }

    @Test func foreignKeysAreWrittenOnlyWhenTheFlagIsOn() throws {
        let models = try authorsAndBooks("FOREIGN KEY (author_id) REFERENCES authors (id) ON DELETE CASCADE")
        let on = ModelSourceWriter(sourceName: "db", emitsForeignKeys: true).source(for: models)
        #expect(
            on.contains(
                """
                    static let schema = Schema<Books>(
                        table: "books",
                        primaryKey: \\.id
                    )
                    .foreignKey(\\.authorId, references: Authors.self, onDelete: .cascade)
                """))
        let off = ModelSourceWriter(sourceName: "db").source(for: models)
        #expect(!off.contains("foreignKey"))
        #expect(off.contains("    static let schema = Schema<Books>(table: \"books\", primaryKey: \\.id)\n"))
    }

    /// The parent named in another case, and without its columns (its primary key).
    @Test(arguments: [("SET NULL", ".setNull"), ("RESTRICT", ".restrict"), ("NO ACTION", ".noAction")])
    func foreignKeyActions(sql: String, swift: String) throws {
        let models = try authorsAndBooks("FOREIGN KEY (author_id) REFERENCES Authors ON DELETE \(sql)")
        let key = try #require(models.last?.table.foreignKeys.first)
        #expect(key.parentTable == "Authors" && key.parentColumns.isEmpty && key.onDelete == sql)
        let source = ModelSourceWriter(sourceName: "db", emitsForeignKeys: true).source(for: models)
        #expect(source.contains(".foreignKey(\\.authorId, references: Authors.self, onDelete: \(swift))"))
    }

    @Test func foreignKeysThatCannotBeDeclaredBecomeComments() throws {
        let models = try authorsAndBooks(
            """
            FOREIGN KEY (id, author_id) REFERENCES authors (a, b) ON DELETE CASCADE,
            FOREIGN KEY (author_id) REFERENCES people ON DELETE CASCADE,
            FOREIGN KEY (author_id) REFERENCES authors ON DELETE SET DEFAULT
            """)
        #expect(models.last?.table.foreignKeys.count == 3)
        let source = ModelSourceWriter(sourceName: "db", emitsForeignKeys: true).source(for: models)
        #expect(!source.contains(".foreignKey("))
        #expect(source.contains("// Not declared: the foreign key (id, author_id) references authors"))
        #expect(source.contains("// Not declared: the foreign key (author_id) references people"))
    }
}
