import CSQLite

/// The row of the `fetch-10-int` and `peak-memory` workloads: ten integer columns.
///
/// A library of its own because two programs use it: the benchmark, and the peak-memory probe
/// that it starts as a child process.
public struct TenInts: Decodable, Equatable, Sendable {
    public var a: Int
    public var b: Int
    public var c: Int
    public var d: Int
    public var e: Int
    public var f: Int
    public var g: Int
    public var h: Int
    public var i: Int
    public var j: Int

    /// The row at `index` (from 0) of the table: every varint size SQLite stores, 0 and 1,
    /// small, 32-bit and 64-bit, negative.
    public init(index: Int) {
        a = index
        b = index % 2
        c = index % 100
        d = -index
        e = index &* 1_000_003
        f = 1 << (index % 62)
        g = (index &* 7919) % 10_007
        h = Int(Int32.max) - index
        i = index &* index
        j = 42
    }

    /// The C side's read of a row: ten `sqlite3_column_int64` calls on the statement's current
    /// row. Inlinable so that the C side's loop costs what it costs written out by hand.
    ///
    /// - Parameter statement: A statement standing on a row of ``select``.
    @inlinable
    public init(columnsOf statement: OpaquePointer) {
        a = Int(sqlite3_column_int64(statement, 0))
        b = Int(sqlite3_column_int64(statement, 1))
        c = Int(sqlite3_column_int64(statement, 2))
        d = Int(sqlite3_column_int64(statement, 3))
        e = Int(sqlite3_column_int64(statement, 4))
        f = Int(sqlite3_column_int64(statement, 5))
        g = Int(sqlite3_column_int64(statement, 6))
        h = Int(sqlite3_column_int64(statement, 7))
        i = Int(sqlite3_column_int64(statement, 8))
        j = Int(sqlite3_column_int64(statement, 9))
    }

    /// The table both sides read.
    public static let createTable = """
        CREATE TABLE ints(a INTEGER NOT NULL, b INTEGER NOT NULL, c INTEGER NOT NULL, \
        d INTEGER NOT NULL, e INTEGER NOT NULL, f INTEGER NOT NULL, g INTEGER NOT NULL, \
        h INTEGER NOT NULL, i INTEGER NOT NULL, j INTEGER NOT NULL)
        """
    public static let insert =
        "INSERT INTO ints(a, b, c, d, e, f, g, h, i, j) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    /// The query both sides run.
    public static let select = "SELECT a, b, c, d, e, f, g, h, i, j FROM ints"

    /// The ten values, in column order.
    public var columns: [Int] { [a, b, c, d, e, f, g, h, i, j] }

    /// A sum that weighs each column differently, so that swapped columns change it.
    public var checksum: Int {
        a &+ 2 &* b &+ 3 &* c &+ 4 &* d &+ 5 &* e &+ 6 &* f &+ 7 &* g &+ 8 &* h &+ 9 &* i &+ 10 &* j
    }
}
