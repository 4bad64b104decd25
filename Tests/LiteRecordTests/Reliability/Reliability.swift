import LiteRecordTestSupport
import Testing

/// The reliability suites: killed processes, several processes, faults from outside.
///
/// They are nested here so that `swift test --filter Reliability` runs exactly them. They start
/// `LiteRecordTestHelper` processes (see ``HelperProcess``).
@Suite("Reliability", .offCooperativePool)
enum Reliability {}
