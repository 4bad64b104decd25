import Foundation
import LiteRecord

/// What the observations of one ``PostgresDatabase`` share: the listener, started by the first
/// observation and stopped by the last, and the tables known to carry LiteRecord's trigger.
///
/// How a change reaches an observation: each observed table gets one statement-level trigger,
/// `AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE`, that calls `pg_notify` on the channel
/// `literecord_<table OID>` (an OID, not a name: channel names are cut at 63 bytes, and tables of
/// the same name in two schemas must not share one). PostgreSQL delivers a notification only
/// when the transaction that raised it commits, once per channel and transaction, to every
/// session listening, whichever client or process wrote.
package final class PostgresObservationHub: @unchecked Sendable {
    // @unchecked Sendable: `listener`, `nextID` and `installed` are only touched under `lock`.
    private let url: String
    private let lock = NSLock()
    private var listener: PostgresListener?
    private var nextID = 0
    /// Tables (OIDs) whose trigger this database installed or found.
    private var installed: Set<UInt32> = []

    static let triggerName = "literecord_observation"
    static let functionName = "literecord_notify_change"

    init(url: String) {
        self.url = url
    }

    /// The channel a table's trigger notifies.
    static func channel(of table: UInt32) -> String { "literecord_\(table)" }

    /// Whether a listening thread and its connection are alive; for tests.
    package var isListening: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let listener else { return false }
        return !listener.hasExited
    }

    /// The server process of the listening connection, if any; for tests.
    package var listenerBackendPID: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return listener?.backendPID
    }

    // MARK: - Subscribing

    /// Registers an observation with the listener, starting one when none runs.
    ///
    /// - Returns: The listener and the observation's id on it.
    /// - Throws: ``LiteRecord/DatabaseError`` when the listening connection cannot open.
    func subscribe(
        handler: @escaping PostgresListener.Handler, onFailure: @escaping PostgresListener.FailureHandler
    ) throws -> (listener: PostgresListener, id: Int) {
        lock.lock()
        defer { lock.unlock() }
        if listener?.hasExited ?? true {
            listener = try PostgresListener(url: url)
        }
        guard let listener else {
            throw DatabaseError(backendName: "PostgreSQL", resultCode: .misuse, message: "no listener")
        }
        nextID += 1
        listener.addSubscriber(nextID, handler: handler, onFailure: onFailure)
        return (listener, nextID)
    }

    /// Removes an observation; the last one to go stops the listener and waits for its thread.
    func unsubscribe(_ listener: PostgresListener, id: Int) {
        lock.lock()
        let remaining = listener.removeSubscriber(id)
        if remaining == 0 && self.listener === listener { self.listener = nil }
        lock.unlock()
        if remaining == 0 { listener.stop() }
    }

    // MARK: - Triggers

    /// Installs the notifying trigger on each table that lacks it, idempotently and safely
    /// against other processes doing the same (an advisory lock serializes installers).
    ///
    /// Only tables and partitioned tables take the trigger; a materialized view or a foreign
    /// table read by an observation is not observed.
    ///
    /// - Parameters:
    ///   - tables: The tables' OIDs.
    ///   - database: Where to install.
    /// - Throws: ``LiteRecord/DatabaseError``, e.g. when the user may not create triggers.
    func installTriggers(on tables: Set<UInt32>, database: PostgresDatabase) throws {
        lock.lock()
        let missing = tables.subtracting(installed)
        lock.unlock()
        guard !missing.isEmpty else { return }
        let function = SQL.quoteIdentifier(Self.functionName)
        // READ COMMITTED, not the configured isolation: at SERIALIZABLE the snapshot is taken
        // before the lock is granted, and the check below missed a trigger another connection
        // installed meanwhile (42710 "already exists").
        try database.schemaTransaction { tx in
            try tx.withSession { session in
                try session.execute("SELECT pg_advisory_xact_lock(hashtext(\(Self.triggerName)))")
                for table in missing.sorted() {
                    let rows = try session.execute(
                        """
                        SELECT n.nspname, c.relname, c.relkind::text, EXISTS (
                            SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = \(Self.triggerName))
                        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                        WHERE c.oid = \(Int64(table))::oid
                        """
                    ).rows
                    guard let row = rows.first, row.count == 4, case .text(let schema) = row[0],
                        case .text(let name) = row[1], case .text(let kind) = row[2],
                        kind == "r" || kind == "p",
                        row[3] == .integer(0)
                    else { continue }
                    let schemaName = SQL.quoteIdentifier(schema)
                    try session.execute(
                        SQL(
                            verbatim: """
                                CREATE OR REPLACE FUNCTION \(schemaName).\(function)() RETURNS trigger
                                LANGUAGE plpgsql AS $$
                                BEGIN
                                    PERFORM pg_notify('literecord_' || TG_RELID::text, '');
                                    RETURN NULL;
                                END
                                $$
                                """))
                    try session.execute(
                        SQL(
                            verbatim: """
                                CREATE TRIGGER \(SQL.quoteIdentifier(Self.triggerName))
                                AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
                                ON \(schemaName).\(SQL.quoteIdentifier(name))
                                FOR EACH STATEMENT EXECUTE FUNCTION \(schemaName).\(function)()
                                """))
                }
            }
        }
        lock.lock()
        installed.formUnion(missing)
        lock.unlock()
    }

    // MARK: - What a fetch reads

    /// The tables (OIDs) the statements read, from their plans (`EXPLAIN (VERBOSE, FORMAT
    /// JSON)`): joins, subqueries and views included; a partition brings its partitioned
    /// tables, whose triggers fire for statements addressed to them.
    ///
    /// Only queries (`SELECT`, `WITH`, `VALUES`, `TABLE`) are explained; a table read inside a
    /// function the query calls does not show in its plan.
    ///
    /// - Parameters:
    ///   - statements: What a fetch ran.
    ///   - session: A session inside the fetch's transaction.
    /// - Returns: The OIDs.
    /// - Throws: ``LiteRecord/DatabaseError``.
    static func tables(readBy statements: [SQL], session: PostgresSession) throws -> Set<UInt32> {
        var relations: Set<[String]> = []
        for statement in statements where isQuery(statement.text) {
            var explain = SQL(verbatim: "EXPLAIN (VERBOSE, FORMAT JSON) ")
            explain.append(statement)
            guard case .text(let plan)? = try session.execute(explain).rows.first?.first,
                let json = try? JSONSerialization.jsonObject(with: Data(plan.utf8))
            else { continue }
            collectRelations(in: json, into: &relations)
        }
        var tables: Set<UInt32> = []
        for relation in relations {
            let rows = try session.execute(
                """
                SELECT a.relid::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
                    LATERAL (SELECT c.oid AS relid UNION SELECT relid FROM pg_partition_ancestors(c.oid)) a
                WHERE n.nspname = \(relation[0]) AND c.relname = \(relation[1])
                """
            ).rows
            for row in rows {
                if case .integer(let oid)? = row.first, let table = UInt32(exactly: oid) {
                    tables.insert(table)
                }
            }
        }
        return tables
    }

    /// Whether a statement a fetch ran is one whose tables an observer learns by explaining it
    /// (and then remembers, so as not to explain it again): a query. Nothing else reads tables
    /// to observe, and a cursor's `DECLARE`, `FETCH` and `CLOSE` carry a new cursor name at
    /// every fetch (the query inside is logged on its own), so remembering them would grow the
    /// observer's memory without end while the observation lasts.
    ///
    /// - Parameter statement: A statement a fetch ran.
    /// - Returns: Whether to explain and remember it.
    package static func isExplained(_ statement: SQL) -> Bool {
        isQuery(statement.text)
    }

    private static func isQuery(_ text: String) -> Bool {
        let start = text.drop { $0.isWhitespace || $0 == "(" }.prefix(6).lowercased()
        return ["select", "with", "values", "table"].contains { start.hasPrefix($0) }
    }

    /// Every `[schema, relation]` a plan scans.
    private static func collectRelations(in json: Any, into relations: inout Set<[String]>) {
        if let array = json as? [Any] {
            for element in array { collectRelations(in: element, into: &relations) }
        } else if let object = json as? [String: Any] {
            if let name = object["Relation Name"] as? String, let schema = object["Schema"] as? String {
                relations.insert([schema, name])
            }
            for value in object.values { collectRelations(in: value, into: &relations) }
        }
    }
}
