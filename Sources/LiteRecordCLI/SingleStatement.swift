import Foundation
import LiteRecord

/// `query` and `explain` take exactly one statement. LiteRecord refuses empty SQL and SQL with
/// several statements before SQLite runs anything, with a hint meant for Swift code
/// (`execute(sql:)`); these messages say the same in the tool's words.
enum SingleStatement {
    /// Runs `body`, which runs or plans the statement a command was given, and turns what it
    /// throws into the command's one-line failure: a refusal of the SQL as one statement in the
    /// tool's words, any other error as `<command> failed: ...`.
    ///
    /// - Parameters:
    ///   - command: The command's name (`query`, `explain`).
    ///   - verb: What the command does with the statement (`runs`, `plans`).
    ///   - body: The work on the statement.
    /// - Throws: ``ToolError`` with the message.
    static func perform<Result>(command: String, verb: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            throw ToolError(
                message(for: error, command: command, verb: verb)
                    ?? ToolError.describing(error, context: "\(command) failed"))
        }
    }

    /// The tool's message for LiteRecord's refusal of `sql` as one statement, or `nil` when
    /// `error` is another failure.
    ///
    /// - Parameters:
    ///   - error: What running the SQL threw.
    ///   - command: The command's name (`query`, `explain`).
    ///   - verb: What the command does with the statement (`runs`, `plans`).
    private static func message(for error: any Error, command: String, verb: String) -> String? {
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
