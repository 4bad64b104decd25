extension Array {
    /// An array of exactly `count` elements that `initialize` writes in place, or `[]` without
    /// calling it when `count` is 0.
    ///
    /// Every array built in place goes through here rather than through
    /// `Array(unsafeUninitializedCapacity:initializingWith:)` directly: with a capacity of 0 that
    /// initializer writes its count into the standard library's one shared empty-array storage,
    /// which every thread reads, and the thread sanitizer reports the write as a data race.
    ///
    /// - Parameters:
    ///   - count: How many elements the array will hold, at most.
    ///   - initialize: Writes the elements and sets how many it wrote.
    /// - Throws: What `initialize` throws.
    @inlinable
    package init(
        filling count: Int,
        _ initialize: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void
    ) rethrows {
        guard count > 0 else {
            self = []
            return
        }
        try self.init(unsafeUninitializedCapacity: count, initializingWith: initialize)
    }
}
