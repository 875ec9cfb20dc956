// LevelMeter on arrays and spans.

extension LevelMeter {
    /// Measures the samples of an array: ``measure(_:)-(UnsafeBufferPointer<Float>)`` over its
    /// storage. Does not allocate (the array is only read), but creating arrays on an audio
    /// thread does: the hot tier takes buffers.
    public func measure(_ samples: [Float]) -> FrameLevel {
        samples.withUnsafeBufferPointer { measure($0) }
    }

    /// Measures the samples of a span; as ``measure(_:)-([Float])``. Does not allocate.
    public func measure(_ samples: Span<Float>) -> FrameLevel {
        samples.withUnsafeBufferPointer { measure($0) }
    }
}
