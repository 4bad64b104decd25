import Foundation

/// Strings built to break code that splices values into SQL, JSON or JSON paths, that stops at
/// NUL characters, that counts characters instead of bytes, or that normalizes Unicode.
///
/// The corpus is deduplicated by UTF-8 bytes, so canonically equivalent spellings (a composed
/// and a decomposed `é`) are kept as distinct entries: LiteRecord compares text by bytes.
enum HostileCorpus {
    /// Every string of the corpus, each with distinct UTF-8 bytes, in a fixed order.
    static let strings: [String] = {
        var seen: Set<[UInt8]> = []
        var result: [String] = []
        for string in handPicked + quoteVariants + controlCharacters + unicodeOddities + huge
        where seen.insert(Array(string.utf8)).inserted {
            result.append(string)
        }
        return result
    }()

    /// The corpus without its megabyte-sized strings, for loops that do work per pair of strings.
    static let short: [String] = strings.filter { $0.utf8.count < 100_000 }

    /// One mebibyte, the size of the largest strings.
    static let hugeByteCount = 1 << 20

    // MARK: - SQL and SQL-like fragments

    private static let handPicked: [String] = [
        "", " ", "  ", "\t", "a", "A", "x", "null", "NULL", "Null", "nil", "undefined", "true", "false",
        "0", "-0", "1", "-1", "01", "1e3", "0x1F", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "1.5", "NaN", "Infinity", "-Infinity", "1.7976931348623157e309",
        "'", "''", "'''", "\"", "\"\"", "`", "``", "[", "]", "[]", "\\", "\\\\", "\\'", "\\\"", "\\0",
        "\\n", "\\u0000", "\\x00", "--", "-- comment", "---", "#", "# comment", "/*", "*/", "/* */",
        "/* unterminated", "*/ x /*", ";", ";;", "; ", "a;b", "'); DROP TABLE x;--",
        "'); DROP TABLE hostile_records;--", "\"); DROP TABLE hostile_records;--",
        "' OR '1'='1", "' OR '1'='1' --", "\" OR \"1\"=\"1", "' OR 1=1 --", "1 OR 1=1", "' OR ''='",
        "admin'--", "admin' #", "admin'/*", "' UNION SELECT * FROM sqlite_master --",
        "' UNION SELECT name, sql FROM sqlite_master WHERE '1'='1",
        "'; ATTACH DATABASE '/tmp/evil.sqlite' AS evil; --", "'; PRAGMA writable_schema = 1; --",
        "'; DELETE FROM hostile_records; --", "'; UPDATE hostile_records SET text = 'pwned'; --",
        "x'00'", "X'DEADBEEF'", "CAST(1 AS TEXT)", "char(0)", "zeroblob(1000000000)",
        "randomblob(10)", "load_extension('evil')", "sqlite_version()", "ROLLBACK", "COMMIT",
        "BEGIN; COMMIT;", "END", "RELEASE literecord_migration", "SAVEPOINT x",
        "SELECT * FROM sqlite_master", "select", "order", "group", "where", "from", "table", "index",
        "ORDER BY 1", "GROUP BY", "LIMIT -1", "OFFSET 1", "CREATE TABLE t(x)", "DROP TABLE t",
        "%", "%%", "_", "__", "%_", "_%", "a%b", "a_b", "%a%", "\\%", "\\_", "[%]", "[_]", "*", "?",
        "??", "?1", "?0", "?999999999", "?-1", ":name", ":id", "::", "::int", "@name", "@", "$1", "$",
        "$name", "$.", "$.a", "$[0]", "$.\"a\"", "$..a", "->", "->>", "json('{}')", "json_extract(x, '$')",
        "{}", "[]", "{\"a\":1}", "[1,2,3]", "{\"\": \"\"}", "{\"__proto__\": {}}", "\"quoted\"",
        "{", "}", "{{", "}}", "{{name}}", "${name}", "%s", "%d", "%n", "%x%x%x%x", "%@", "\\(name)",
        "<script>alert(1)</script>", "<!--", "-->", "&amp;", "&#0;", "../../etc/passwd", "C:\\con",
        "file:///etc/passwd", "https://example.com/?q='%20--", "a b", "a\tb", "a\nb", "a\r\nb",
        "trailing ", " leading", "sp  aces", "UPPER lower MiXeD",
    ]

    // MARK: - Quotes of every kind, in every position

    private static let quotes: [String] = [
        "'", "\"", "`", "[", "]", "\\", "\u{00B4}", "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}",
        "\u{00AB}", "\u{00BB}", "\u{FF07}", "\u{FF02}", "\u{02BC}", "\u{2032}", "\u{301D}",
    ]

    private static let quoteVariants: [String] = quotes.flatMap { (quote: String) -> [String] in
        let doubled: String = quote + quote
        let after: String = "a" + quote
        let before: String = quote + "a"
        let inside: String = "a" + quote + "b"
        let around: String = quote + "a" + quote
        let injection: String = quote + "; DROP TABLE x; --" + quote
        return [doubled, after, before, inside, around, injection]
    }

    // MARK: - NUL and control characters

    private static let controlCharacters: [String] =
        (0x00...0x1F).map { "a" + String(Unicode.Scalar(UInt8($0))) + "b" }
        + [
            "\u{0}", "\u{0}\u{0}", "\u{0}a", "a\u{0}", "'\u{0}'", "\u{0}'; DROP TABLE x; --",
            "\u{7F}", "a\u{7F}b", "\u{80}", "\u{85}", "\u{9F}", "\u{1B}[31mred\u{1B}[0m", "\r", "\r\n",
            "\u{0}%\u{0}_",
        ]

    // MARK: - Unicode that trips normalization, grapheme and encoding assumptions

    private static let unicodeOddities: [String] = [
        "é", "e\u{301}", "\u{212B}", "\u{00C5}", "A\u{30A}", "ﬁ", "ß", "SS", "İ", "ı", "ǅ", "Ω", "\u{2126}",
        "e\u{301}\u{301}\u{301}\u{301}", "Z\u{351}\u{34A}\u{35B}\u{36D}a\u{314}\u{30B}l\u{330}g\u{35B}o",
        "\u{202E}evil\u{202C}", "\u{202E}", "\u{200F}", "\u{200E}", "\u{061C}", "abc\u{202E}def",
        "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}", "\u{FEFF}bom", "\u{00A0}", "\u{2028}",
        "\u{2029}", "\u{3000}", "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "\u{10FFFF}", "\u{E000}", "\u{1D11E}",
        "👍", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "🇫🇷🇩🇪", "1️⃣", "#️⃣", "☺︎", "☺️", "🧑🏿‍🚀", "👁‍🗨",
        "中文", "日本語のテキスト", "한국어", "עברית", "العربية", "हिन्दी", "ภาษาไทย", "Ελληνικά",
        "Кириллица", "𐍈", "𝕏", "ǅungla",
        // Lone surrogates cannot live in a Swift string: decoding replaces them with U+FFFD.
        String(decoding: [0x61, 0xD800, 0x62] as [UInt16], as: UTF16.self),
        String(decoding: [0xDC00] as [UInt16], as: UTF16.self),
        String(decoding: [0xDFFF, 0xD800] as [UInt16], as: UTF16.self),
        // Invalid UTF-8 bytes are replaced the same way.
        String(decoding: [0x61, 0xFF, 0xFE, 0x62] as [UInt8], as: UTF8.self),
        String(decoding: [0xC0, 0x80] as [UInt8], as: UTF8.self),
        String(decoding: [0xED, 0xA0, 0x80] as [UInt8], as: UTF8.self),
        String(decoding: [0xF4, 0x90, 0x80, 0x80] as [UInt8], as: UTF8.self),
        "a\u{0}é\u{0}👍🏽\u{0}'\u{0}\"",
    ]

    // MARK: - Sizes

    private static let huge: [String] = [
        String(repeating: "x", count: 255), String(repeating: "'", count: 1_000),
        String(repeating: "\u{0}", count: 1_000), String(repeating: "é", count: 40_000),
        String(repeating: "x", count: hugeByteCount),
        String(repeating: "'; --\"", count: hugeByteCount / 6 + 1),
        String(repeating: "👍🏽\u{0}", count: hugeByteCount / 9 + 1),
    ]
}
