/// What decoding one type from one statement learns once and reuses on every later row, and on
/// every later execution of the statement (a find by key runs the same statement for one row
/// each time).
///
/// Kept by the statement, used by one fetch at a time (a statement in use is never lent twice).
final class DecodingPlan {
    let type: ObjectIdentifier
    /// The statement's columns the plan was made for; `nil` for a copied row.
    let columns: RowColumns?
    let keyToColumn: [String: String]?
    /// Plain values and collections read the first column instead of a keyed container.
    let readsFirstColumn: Bool
    // Only ever touched by the one fetch using the statement, on one thread.
    @exclusivity(unchecked) var lookup = ColumnLookup()
    /// Per column index: the last property type decoded there and how it is stored.
    @exclusivity(unchecked) private var storageKinds: [(type: ObjectIdentifier, kind: PropertyStorageKind)?] =
        []
    /// Whether rows are decoded in place (``LayoutDecoding``), decided on the first row.
    @exclusivity(unchecked) private var isLayoutDecided = false
    @exclusivity(unchecked) private var layoutBinding: LayoutBinding?
    /// How many rows the last fetch collecting in place returned.
    @exclusivity(unchecked) var lastRowCount = 0

    init(type: Any.Type, columns: RowColumns?, keyToColumn: [String: String]?) {
        self.type = ObjectIdentifier(type)
        self.columns = columns
        self.keyToColumn = keyToColumn
        readsFirstColumn = type is any DatabaseValueConvertible.Type || type is any Collection.Type
    }

    /// Whether the plan holds for decoding `type` from these columns with these column names.
    func fits(_ type: Any.Type, columns: RowColumns, keyToColumn: [String: String]?) -> Bool {
        self.type == ObjectIdentifier(type) && self.columns === columns && self.keyToColumn == keyToColumn
    }

    /// Whether the plan holds for decoding `type` from the statement's current columns.
    func fits(_ type: Any.Type, statement: Statement, keyToColumn: [String: String]?) -> Bool {
        self.type == ObjectIdentifier(type) && statement.hasColumns(identicalTo: columns)
            && self.keyToColumn == keyToColumn
    }

    /// The in-place decoding of rows of `type` from these columns, or `nil` when rows go through
    /// the type's `init(from:)`: decided on the first row, for the life of the plan.
    @inline(__always)
    func layout<T: Decodable>(for type: T.Type) -> LayoutBinding? {
        if isLayoutDecided { return layoutBinding }
        isLayoutDecided = true
        // A copied row has no statement to read in place.
        guard let columns, let layout = LayoutDecoding.layout(for: T.self) else { return nil }
        let keyToColumn = keyToColumn
        layoutBinding = LayoutBinding(T.self, layout: layout) { key in
            columns.index(of: keyToColumn?[key] ?? key)
        }
        return layoutBinding
    }

    /// How a property type without a fast path is stored, remembered per column so that the
    /// conformance check and the JSON memo are not asked again on every row.
    func storageKind(of type: Any.Type, at index: Int) -> PropertyStorageKind {
        let identifier = ObjectIdentifier(type)
        if index < storageKinds.count, let known = storageKinds[index], known.type == identifier {
            return known.kind
        }
        let kind: PropertyStorageKind
        if let convertible = type as? any DatabaseValueConvertible.Type {
            kind = .convertible(convertible)
        } else if JSONTypeMemo.isKnownJSON(type, encoding: false) {
            kind = .json
        } else {
            // Not remembered: the first decoding may find that the type needs JSON.
            return .undecided
        }
        if storageKinds.count <= index {
            storageKinds += Array(repeating: nil, count: index + 1 - storageKinds.count)
        }
        storageKinds[index] = (identifier, kind)
        return kind
    }
}

/// How a property whose type has no fast path reads its column.
enum PropertyStorageKind {
    /// Through the type's ``DatabaseValueConvertible`` conformance.
    case convertible(any DatabaseValueConvertible.Type)
    /// JSON text, decoded from the column's bytes.
    case json
    /// Not known yet: a single value, or JSON found out on first use.
    case undecided
}

/// Finds column indexes by key name, learning the order in which a type asks for its keys on
/// the first row so that later rows compare short strings instead of hashing them.
struct ColumnLookup {
    private var names: [String] = []
    private var indexes: [Int?] = []
    /// Where the next key is expected in ``names``; the key before it is the last one asked for.
    private var position = 0

    mutating func beginRow() {
        position = 0
    }

    /// The column index for a coding key; the key is mapped to its column name only the first
    /// time it is seen, not on every row.
    @inline(__always)
    mutating func index(of name: String, in context: RowDecodingContext) -> Int? {
        // Keys come in the same order on every row, and a synthesized key's name is the same
        // string each time, so `==` mostly succeeds on its first, bitwise check.
        if position < names.count && names[position] == name {
            position += 1
            return indexes[position - 1]
        }
        return slowIndex(of: name, in: context)
    }

    private mutating func slowIndex(of name: String, in context: RowDecodingContext) -> Int? {
        // A key asked for again at once (`contains`, then `decode`) is the one before `position`.
        if position > 0 && names[position - 1] == name { return indexes[position - 1] }
        if let known = names.firstIndex(of: name) {
            position = known + 1
            return indexes[known]
        }
        let found = context.columnIndex(named: context.keyToColumn?[name] ?? name)
        names.append(name)
        indexes.append(found)
        position = names.count
        return found
    }
}
