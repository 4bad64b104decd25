import Foundation
import LiteRecord
import Testing

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
}
