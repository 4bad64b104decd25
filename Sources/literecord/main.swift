// literecord: the command-line tool. Everything but printing lives in LiteRecordCLI, where the
// tests reach it.

import Foundation
import LiteRecordCLI

let outcome = LiteRecordTool.run(Array(CommandLine.arguments.dropFirst()))
FileHandle.standardOutput.write(Data(outcome.output.utf8))
FileHandle.standardError.write(Data(outcome.error.utf8))
exit(outcome.status)
