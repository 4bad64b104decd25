import Foundation
import LiteRecord
import Testing

/// A list whose `init(from:)` decodes its tail only when present: a placeholder decoder that
/// says every key is present would recurse forever.
private indirect enum LinkedList: Codable, Equatable, Sendable {
    case node(head: Int, tail: LinkedList?)

    private enum CodingKeys: String, CodingKey { case head, tail }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let head = try container.decode(Int.self, forKey: .head)
        var tail: LinkedList?
        if container.contains(.tail) {
            tail = try container.decode(LinkedList.self, forKey: .tail)
        }
        self = .node(head: head, tail: tail)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        guard case .node(let head, let tail) = self else { return }
        try container.encode(head, forKey: .head)
        try container.encodeIfPresent(tail, forKey: .tail)
    }
}

private struct ListHolder: Model, Equatable {
    var id: Int64?
    var list: LinkedList
    static let schema = Schema<ListHolder>(table: "list_holders")
}

/// A model that is itself a recursive list.
private struct ListNode: Model, Equatable {
    var id: Int64?
    var head: Int
    var tail: LinkedList?

    init(id: Int64?, head: Int, tail: LinkedList?) {
        self.id = id
        self.head = head
        self.tail = tail
    }

    private enum CodingKeys: String, CodingKey { case id, head, tail }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        head = try container.decode(Int.self, forKey: .head)
        // Decoded with decode(_:forKey:), not decodeIfPresent: the column is still nullable,
        // because the property is optional.
        if container.contains(.tail), try !container.decodeNil(forKey: .tail) {
            tail = try container.decode(LinkedList.self, forKey: .tail)
        }
    }

    static let schema = Schema<ListNode>(table: "list_nodes")
}

/// An expression tree whose `init(from:)` always decodes a child: no placeholder can end it.
private indirect enum Expression: Codable, Equatable, Sendable {
    case number(Int)
    case negate(Expression)

    private enum CodingKeys: String, CodingKey { case operand }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = .negate(try container.decode(Expression.self, forKey: .operand))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        guard case .negate(let operand) = self else { return }
        try container.encode(operand, forKey: .operand)
    }
}

/// A recursive property first, under a custom key: the probe can neither finish decoding nor
/// tell the other properties' keys, so the model cannot be mapped.
private struct EndlessModel: Model {
    var id: Int64?
    var expression: Expression
    var name: String

    private enum CodingKeys: String, CodingKey {
        case id
        case expression = "expr"
        case name = "label"
    }

    static let schema = Schema<EndlessModel>(table: "endless")
}

/// The SwiftUI idiom: a `let` with an initial value is encoded but never decoded.
private struct Todo: Model {
    let id = UUID()
    var title: String
}

private final class ClassModel: Model, @unchecked Sendable {
    var id: Int64?
    var name: String = ""
}

@propertyWrapper
private struct Clamped: Codable, Sendable {
    var value: Int
    var wrappedValue: Int {
        get { value }
        set { value = min(max(newValue, 0), 100) }
    }
    init(wrappedValue: Int) { value = min(max(wrappedValue, 0), 100) }
}

private struct WrappedModel: Model {
    var id: Int64?
    @Clamped var level: Int
    static let schema = Schema<WrappedModel>(table: "wrapped", indexes: [[\.level]])
}

/// The same, with the wrapper's storage named in the schema.
private struct WrappedStorageModel: Model {
    var id: Int64?
    @Clamped var level: Int
    static let schema = Schema<WrappedStorageModel>(table: "wrapped_storage", indexes: [[\._level]])
}

/// Probing a model's shape never crashes and explains what it cannot map.
@Suite struct ProbeSafetyTests {
    @Test func recursiveInitFromInsideAJSONPropertyIsAJSONColumn() throws {
        let db = try Database(.inMemory)
        var holder = ListHolder(id: nil, list: .node(head: 1, tail: .node(head: 2, tail: nil)))
        try db.insert(&holder)
        #expect(try db.find(ListHolder.self, id: holder.id ?? 0) == holder)
        #expect(try createSQL(db, "list_holders").contains("\"list\" TEXT NOT NULL"))
    }

    @Test func recursiveModelProbesWithoutOverflow() throws {
        let db = try Database(.inMemory)
        var node = ListNode(id: nil, head: 1, tail: .node(head: 2, tail: nil))
        try db.insert(&node)
        var last = ListNode(id: nil, head: 3, tail: nil)
        try db.insert(&last)
        #expect(try db.find(ListNode.self, id: node.id ?? 0) == node)
        #expect(try db.find(ListNode.self, id: last.id ?? 0) == last)
        #expect(try createSQL(db, "list_nodes").contains("\"tail\" TEXT"))
        #expect(try !createSQL(db, "list_nodes").contains("\"tail\" TEXT NOT NULL"))
    }

    @Test func endlessRecursionIsASchemaErrorNamingTheType() throws {
        let db = try Database(.inMemory)
        let error = schemaError { try db.migrate(EndlessModel.self) }
        #expect(error?.message.contains("Expression") == true)
        #expect(error?.message.contains("recurs") == true)
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func letWithInitialValueIsASchemaErrorAndCreatesNothing() throws {
        let db = try Database(.inMemory)
        let error = schemaError { try db.insert(Todo(title: "milk")) }
        let message = error?.message ?? ""
        #expect(message.contains("Todo.id"))
        #expect(message.contains("let"))
        #expect(message.contains("var id = UUID()"))
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func classModelErrorSaysToUseAStruct() throws {
        let db = try Database(.inMemory)
        let error = schemaError { try db.migrate(ClassModel.self) }
        let message = error?.message ?? ""
        #expect(message.contains("ClassModel"))
        #expect(message.contains("class"))
        #expect(message.contains("struct"))
    }

    @Test func propertyWrapperErrorNamesTheStorage() throws {
        let db = try Database(.inMemory)
        let error = schemaError { try db.migrate(WrappedModel.self) }
        let message = error?.message ?? ""
        #expect(message.contains("WrappedModel"))
        #expect(message.contains("_level"))
        #expect(message.contains("property wrapper"))
    }

    @Test func propertyWrapperStorageNamesItsColumn() throws {
        let db = try Database(.inMemory)
        var model = WrappedStorageModel(id: nil, level: 250)
        try db.insert(&model)
        #expect(try db.find(WrappedStorageModel.self, id: model.id ?? 0)?.level == 100)
        #expect(try indexColumns(db, "wrapped_storage_on_level") == ["level"])
    }
}
