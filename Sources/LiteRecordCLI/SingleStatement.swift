import Foundation
import LiteRecord

/// `query` and `explain` take exactly one statement. LiteRecord refuses empty SQL and SQL with
/// several statements before SQLite runs anything, with a hint meant for Swift code
/// (`execute(sql:)`); these messages say the same in the tool's words.
enum SingleStatement {
    /// The tool's message for LiteRecord's refusal of `sql` as one statement, or `nil` when
    /// `error` is another failure.
    ///
    /// - Parameters:
    ///   - error: What running the SQL threw.
    ///   - command: The command's name (`query`, `explain`).
    ///   - verb: What the command does with the statement (`runs`, `plans`).
    static func message(for error: any Error, command: String, verb: String) -> String? {
        // LiteRecord reports both as API misuse; its messages are matched, and the tests of
        // both commands fail if they change.
        guard let error = error as? DatabaseError, error.resultCode.primary == .misuse else { return nil }
        if error.message.hasPrefix("the SQL holds more than one statement") {
            return "the SQL holds more than one statement; \(command) \(verb) exactly one statement per "
                + "call (run each statement in its own call)"
        }
        if error.message.hasPrefix("no SQL statement") {
            return "no SQL statement given"
        }
        return nil
    }
}
