/// The memory a unit holds, in bytes, as it allocated it in `init`.
///
/// `ownedBytes` is what one instance (one stream) allocated for itself; `sharedBytes` is the
/// immutable tables it reads that are shared by every instance with the same configuration
/// (counted once, whoever holds them). Each unit sums the capacities of its own allocations,
/// so the figures are the payload asked of the allocator: `malloc`'s headers and rounding, the
/// class instances themselves and FFTW's plans are not in them (see `docs/front-end.md`,
/// "Memory per stream", for how they compare with the resident memory of 1000 streams).
public struct MemoryFootprint: Equatable, Sendable, CustomStringConvertible {
    /// Bytes this instance allocated and owns.
    public var ownedBytes: Int
    /// Bytes of immutable tables shared by every instance with the same configuration.
    public var sharedBytes: Int

    /// Creates a footprint.
    public init(ownedBytes: Int = 0, sharedBytes: Int = 0) {
        self.ownedBytes = ownedBytes
        self.sharedBytes = sharedBytes
    }

    /// The footprints added.
    public static func + (a: MemoryFootprint, b: MemoryFootprint) -> MemoryFootprint {
        MemoryFootprint(ownedBytes: a.ownedBytes + b.ownedBytes, sharedBytes: a.sharedBytes + b.sharedBytes)
    }

    /// Adds `b`.
    public static func += (a: inout MemoryFootprint, b: MemoryFootprint) { a = a + b }

    /// `owned N B, shared M B`.
    public var description: String { "owned \(ownedBytes) B, shared \(sharedBytes) B" }

    /// Bytes of `count` values of `T` (its stride times the count).
    @inlinable
    public static func bytes<T>(_: T.Type, _ count: Int) -> Int { MemoryLayout<T>.stride * count }

    /// Bytes of the values `buffer` covers.
    @inlinable
    public static func bytes<T>(_ buffer: UnsafeMutableBufferPointer<T>) -> Int { MemoryLayout<T>.stride * buffer.count }

    /// `bytes` owned.
    @inlinable
    public static func owned(_ bytes: Int) -> MemoryFootprint { MemoryFootprint(ownedBytes: bytes) }
}

/// A unit that reports the memory it allocated (see ``MemoryFootprint``).
public protocol MemoryAccounting: AnyObject {
    /// The unit's allocations, owned and shared, units it holds included.
    var memoryFootprint: MemoryFootprint { get }
}
