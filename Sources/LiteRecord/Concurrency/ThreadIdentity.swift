import Foundation

/// A number that tells the running thread apart from every other live thread.
///
/// LiteRecord lends connections to threads: knowing that the current thread already holds the
/// writer (or a reader) lets a nested call reuse that connection instead of waiting for itself.
package enum ThreadIdentity {
    package static var current: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}

/// Raised inside LiteRecord when a read routed to a reader connection turns out to write
/// (`INSERT ... RETURNING` fetched as rows) or to be a `PRAGMA` (whose answer is the writer's);
/// the read is then run on the writer.
struct RoutedReadNeedsWriter: Error {}
