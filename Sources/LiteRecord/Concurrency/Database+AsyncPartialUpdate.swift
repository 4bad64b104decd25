extension Database {
    /// Updates only some columns of the row with the model's primary key; see
    /// ``DatabaseContext/update(_:columns:)``.
    ///
    /// - Parameters:
    ///   - model: The model; its primary key chooses the row.
    ///   - columns: Key paths of the stored properties to write.
    /// - Throws: As the synchronous form, or `CancellationError` (nothing is written then).
    public func update<M: Model>(_ model: M, columns: [PartialKeyPath<M>]) async throws {
        // Key paths are not Sendable: resolve them here, send the resolved properties.
        let references = columns.map(PropertyReference.init)
        try await asyncWriting { try $0.update(model, columnReferences: references) }
    }
}
