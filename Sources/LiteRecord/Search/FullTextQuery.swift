import Foundation

/// Turns any user text into an FTS5 query that finds rows holding each of its words, and can
/// never be a syntax error or an operator.
enum FullTextQuery {
    /// The words of `text`: runs of the characters FTS5's `unicode61` tokenizer keeps in a token
    /// (Unicode letters, digits and private-use characters, and combining diacritical marks);
    /// everything else separates words. Duplicates are left out.
    static func words(in text: String) -> [String] {
        var words: [String] = []
        var seen = Set<String>()
        var current = String.UnicodeScalarView()
        func finishWord() {
            // A run of combining diacritics alone is no token once they are removed.
            guard current.contains(where: { !(0x300...0x36F).contains($0.value) }) else {
                current = String.UnicodeScalarView()
                return
            }
            let word = String(current)
            if seen.insert(word).inserted { words.append(word) }
            current = String.UnicodeScalarView()
        }
        for scalar in text.unicodeScalars {
            if isTokenCharacter(scalar) {
                current.append(scalar)
            } else {
                finishWord()
            }
        }
        finishWord()
        return words
    }

    /// Whether `unicode61` keeps `scalar` in a token (its default categories `L* N* Co`, and
    /// the combining diacritics it removes rather than splitting on them).
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value)
                || (0x61...0x7A).contains(value)
        }
        if (0x300...0x36F).contains(scalar.value) { return true }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }

    /// The FTS5 query for user text: each word an FTS5 string (`"word"`, any `"` doubled),
    /// joined by spaces, which FTS5 reads as AND. Text without a word gives `""`, an empty
    /// string that matches no row.
    static func expression(forWordsIn text: String) -> String {
        let words = words(in: text)
        guard !words.isEmpty else { return "\"\"" }
        return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            .joined(separator: " ")
    }
}
