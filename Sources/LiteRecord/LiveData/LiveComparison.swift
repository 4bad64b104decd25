import Foundation

// Why values are compared by encoding: a live query changes its value only when the value
// differs, but the models of a query need not be `Equatable` (`Model` asks only `Codable`).
// What a model encodes is what it stores, so two arrays that encode alike hold the same rows.

/// How a live query tells a fresh value from the one it shows.
enum LiveComparison {
    /// Whether two values encode to the same JSON (keys sorted). A value that cannot be encoded
    /// (a `Double.nan`) counts as different, which costs an update and loses nothing.
    static func sameEncoding<T: Encodable>(_ first: T, _ second: T) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let firstData = try? encoder.encode(first), let secondData = try? encoder.encode(second) else {
            return false
        }
        return firstData == secondData
    }
}

/// A node of an `including` tree as what its models encode: the root, then its related rows.
struct EncodedNode: Encodable {
    let node: RelationNode

    init(_ node: RelationNode) {
        self.node = node
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(node.root)
        switch node.related {
        case .none:
            break
        case .many(_, let children):
            try container.encode(children.map(EncodedNode.init))
        case .one(_, let child):
            try container.encode(child.map(EncodedNode.init))
        }
    }
}
