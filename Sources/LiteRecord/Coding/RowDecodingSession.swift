/// Decodes the rows of one fetch, reusing from row to row what does not change.
///
/// Holds the ``RowDecodingContext`` that the containers share, and the keyed container the type
/// asked for on the previous row: making a new one costs two run-time generic metadata lookups
/// and an allocation, more than reading a few columns. The container lives here rather than in
/// the context because it refers to the context, and a cache inside the context would be a
/// reference cycle.
final class RowDecodingSession {
    let context: RowDecodingContext
    private var cachedContainer: CachedContainer?
    private var isOnFirstRow = true

    /// A session over the rows a statement steps through.
    init(source: Statement, decoder: RowDecoder, type: Any.Type) {
        context = RowDecodingContext(source: source, decoder: decoder, type: type)
    }

    deinit {
        cachedContainer?.destroy()
    }

    /// Decodes the statement's current row.
    func decodeRow<Value: Decodable>(_ type: Value.Type) throws -> Value {
        defer { isOnFirstRow = false }
        return try context.decodeRow(Value.self, session: self)
    }

    /// The keyed container of the previous row when the type asks for the same keys again.
    ///
    /// The container keeps no state of its own (the context tracks the row), so one serves
    /// every row.
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        if let cachedContainer, cachedContainer.keyType == ObjectIdentifier(Key.self) {
            return cachedContainer.storage.assumingMemoryBound(to: KeyedDecodingContainer<Key>.self).pointee
        }
        let container = KeyedDecodingContainer(RowKeyedDecodingContainer<Key>(context: context))
        // A single row (a find by key) would pay for the cache without using it.
        guard !isOnFirstRow else { return container }
        cachedContainer?.destroy()
        cachedContainer = CachedContainer(container)
        return container
    }
}

/// A `KeyedDecodingContainer<Key>` kept without its type.
///
/// Getting it back as `Any` costs a dynamic cast and the metadata of `Optional<...>` on every
/// row; a typed pointer, read only when the key type matches, costs one metadata lookup.
private struct CachedContainer {
    let keyType: ObjectIdentifier
    let storage: UnsafeMutableRawPointer
    let destroy: () -> Void

    init<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>) {
        let typed = UnsafeMutablePointer<KeyedDecodingContainer<Key>>.allocate(capacity: 1)
        typed.initialize(to: container)
        keyType = ObjectIdentifier(Key.self)
        storage = UnsafeMutableRawPointer(typed)
        destroy = {
            typed.deinitialize(count: 1)
            typed.deallocate()
        }
    }
}
