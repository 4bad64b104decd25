import CLibPQ

/// Stops the statement running on a connection, from another thread (`PQcancel`).
final class PostgresCanceller: @unchecked Sendable {
    // @unchecked Sendable: libpq documents PQcancel as safe to call from any thread (even a
    // signal handler) on a PGcancel object; the object is freed only in deinit.
    private let cancel: OpaquePointer?

    init(connection: OpaquePointer) {
        cancel = PQgetCancel(connection)
    }

    deinit {
        if let cancel { PQfreeCancel(cancel) }
    }

    /// Asks the server to cancel the statement in progress; the statement then fails with
    /// ``ResultCode/interrupt`` (SQLSTATE 57014).
    func cancelRunningStatement() {
        guard let cancel else { return }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &buffer, Int32(buffer.count))
    }
}
