import Foundation

/// Turns table and column names into Swift identifiers that compile, read naturally and pass
/// the repository's lint (ASCII, lowerCamelCase properties, UpperCamelCase types).
package enum SwiftNaming {
    /// Words reserved in declarations and expressions: a property with one of these names is
    /// written in backticks.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
        "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
        "return", "throw", "switch", "where", "while", "as", "false", "is", "nil", "super", "throws",
        "true", "try", "await", "async", "any", "some", "consume", "copy", "discard", "borrowing",
        "consuming", "package", "actor", "each", "macro",
    ]

    /// Names a property cannot take even in backticks, or that clash with a model's members.
    static let reservedMembers: Set<String> = [
        "self", "Self", "init", "deinit", "subscript", "super", "Type", "Protocol", "schema",
    ]

    /// Type names a generated model must not shadow: the file uses them.
    static let reservedTypes: Set<String> = [
        "Model", "Schema", "Database", "Date", "Data", "String", "Int", "Int64", "Double", "Bool", "Codable",
        "CodingKey", "CodingKeys", "Row", "Query", "Foundation", "LiteRecord", "Self", "Type", "Protocol",
        "Any",
        "StoredValue", "DatabaseValue", "DatabaseValueConvertible", "DatabaseColumnType", "Sendable",
        "Hashable",
        "Decoder", "Encoder", "Optional", "Array", "Set", "Dictionary", "Error", "Never", "Void",
    ]

    /// Letters that folding leaves outside ASCII, as they are usually written in ASCII.
    static let spelledOutLetters: [Unicode.Scalar: String] = [
        "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "đ": "d", "ð": "d",
        "Đ": "D", "Ð": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "Th",
    ]

    /// Splits a name into ASCII alphanumeric words: diacritics dropped (`é` → `e`), a few
    /// letters spelled out (`ß` → `ss`), any other non-ASCII character as `U` and its hex code.
    static func words(_ name: String) -> [String] {
        // Folding costs about a millisecond per call on Linux: only names that need it pay.
        let folded =
            name.unicodeScalars.allSatisfy(\.isASCII)
            ? name : name.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
        var words: [String] = []
        var current = ""
        func flush() {
            if !current.isEmpty { words.append(current) }
            current = ""
        }
        for scalar in folded.unicodeScalars {
            // `it's` is one word.
            if scalar == "'" || scalar == "\u{2019}" { continue }
            if scalar.isASCII {
                let character = Character(scalar)
                if character.isLetter || character.isNumber {
                    current.append(character)
                } else {
                    flush()
                }
                continue
            }
            if let spelling = spelledOutLetters[scalar] {
                current += spelling
            } else if scalar.properties.isWhitespace || scalar.properties.generalCategory == .nonspacingMark {
                flush()
            } else {
                flush()
                words.append("U" + String(scalar.value, radix: 16, uppercase: true))
            }
        }
        flush()
        return words
    }

    /// An UpperCamelCase type name: `order details` → `OrderDetails`, `2019 sales` → `Table2019Sales`.
    package static func typeName(_ table: String) -> String {
        var name = words(table).map(capitalizedFirst).joined()
        if name.isEmpty { name = "Table" }
        if name.first?.isNumber == true { name = "Table" + name }
        if reservedTypes.contains(name) { name += "Record" }
        return name
    }

    /// A lowerCamelCase property name: `OrderID` → `orderID`, `Unit Price` → `unitPrice`,
    /// `URLPath` → `urlPath`, `first_name` → `firstName`, `2nd` → `column2nd`. Keywords come
    /// back in backticks (`` `default` ``).
    package static func propertyName(_ column: String) -> String {
        let parts = words(column)
        guard let first = parts.first else { return "column" }
        var name = lowercasedFirstWord(first) + parts.dropFirst().map(capitalizedFirst).joined()
        if name.first?.isNumber == true { name = "column" + capitalizedFirst(name) }
        if reservedMembers.contains(name) { name += "Value" }
        if keywords.contains(name) { name = "`\(name)`" }
        return name
    }

    /// `name` without backticks, to compare names or build derived ones.
    static func bare(_ name: String) -> String {
        name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
    }

    private static func capitalizedFirst(_ word: String) -> String {
        word.prefix(1).uppercased() + word.dropFirst()
    }

    /// `ID` → `id`, `URLPath` → `urlPath`, `OrderID` → `orderID`, `name` → `name`.
    private static func lowercasedFirstWord(_ word: String) -> String {
        let characters = Array(word)
        var leadingUppercase = 0
        while leadingUppercase < characters.count && characters[leadingUppercase].isUppercase {
            leadingUppercase += 1
        }
        if leadingUppercase == characters.count { return word.lowercased() }
        // An acronym before a word: all but its last capital, which starts the next word.
        let lowered = max(1, leadingUppercase - 1)
        guard leadingUppercase > 1 else {
            return String(characters[0]).lowercased() + String(characters.dropFirst())
        }
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// Makes `names` unique by appending 2, 3, ... to repeats (compared without backticks).
    static func uniqued(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.map { name in
            var candidate = bare(name)
            var suffix = 2
            while seen.contains(candidate.lowercased()) {
                candidate = bare(name) + String(suffix)
                suffix += 1
            }
            seen.insert(candidate.lowercased())
            return candidate == bare(name) ? name : candidate
        }
    }

    /// A Swift string literal for `text`: quotes, backslashes and control characters escaped.
    package static func stringLiteral(_ text: String) -> String {
        StringLiteralSyntax.swift.literal(text)
    }
}
