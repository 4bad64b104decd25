extension Connection {
    /// The row decoder configured for this connection's database.
    var rowDecoder: RowDecoder {
        RowDecoder(dateStorage: configuration.dateStorage)
    }

    /// The row encoder configured for this connection's database.
    var rowEncoder: RowEncoder {
        RowEncoder(dateStorage: configuration.dateStorage)
    }
}
