import Foundation
import LiteRecord
import Testing

extension Hardening {
    /// Bugs the hardening tests and fuzzers found, each pinned by the input that triggered it.
    @Suite struct HardeningRegressionTests {
        /// Regression: a finite REAL julian day near `Double.greatestFiniteMagnitude` used to read
        /// as a `Date` with an infinite interval (which cannot even be stored back).
        @Test func hugeJulianDaysAreRefused() throws {
            for value: DatabaseValue in [.real(.greatestFiniteMagnitude), .real(-1e305), .text("1e308")] {
                #expect(throws: ValueConversionError.self, "\(value)") {
                    try DateStorage.julianDay.date(from: value)
                }
            }
            #expect(
                try DateStorage.julianDay.date(from: .real(2_451_910.5))
                    == Date(timeIntervalSinceReferenceDate: 0))
        }

        /// Regression: a type reading a JSON column through `nestedContainer(keyedBy:forKey:)` lost
        /// a U+FEFF at the start of a string value, because JSONSerialization (swift-corelibs-
        /// foundation) drops it when parsing; the plain JSON path kept it.
        @Test func nestedContainersKeepALeadingByteOrderMark() throws {
            struct Reader: Decodable, Equatable {
                var label: String
                var names: [String]
                enum Keys: String, CodingKey { case stats }
                enum StatsKeys: String, CodingKey { case label, names }
                init(label: String, names: [String]) {
                    (self.label, self.names) = (label, names)
                }
                init(from decoder: any Decoder) throws {
                    let stats = try decoder.container(keyedBy: Keys.self)
                        .nestedContainer(keyedBy: StatsKeys.self, forKey: .stats)
                    label = try stats.decode(String.self, forKey: .label)
                    names = try stats.decode([String].self, forKey: .names)
                }
            }
            let db = try Database(.inMemory)
            let json = "{\"label\":\"\u{FEFF}\",\"names\":[\"\u{FEFF}x\",\"y\u{FEFF}\"]}"
            let read = try db.fetchOne(Reader.self, sql: "SELECT \(json) AS stats")
            #expect(read == Reader(label: "\u{FEFF}", names: ["\u{FEFF}x", "y\u{FEFF}"]))
            #expect(read.map { sameBytes($0.label, "\u{FEFF}") } == true)
        }
    }
}
