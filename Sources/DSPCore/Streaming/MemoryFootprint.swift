/// The memory a unit holds, in bytes, as it allocated it in `init`.
///
/// `ownedBytes` is what one instance (one stream) allocated for itself; `sharedBytes` is the
/// immutable tables it reads that are shared by every instance with the same configuration
/// (counted once, whoever holds them). Each unit sums the capacities of its own allocations,
/// so the figures are the payload asked of the allocator: `malloc`'s headers and rounding, the
/// class instances themselves and FFTW's plans are not in them (see `docs/front-end.md`,
/// "Memory per stream", for how they compare with the resident memory of 1000 streams).
///
/// `workspaceBytes` is neither: the scratch a call takes from the calling thread's workspace
/// (buffers no value is read from in a later call: FFT buffers, a frame's spectra), held once
/// per *thread* whatever the number of streams that thread runs.
public struct MemoryFootprint: Equatable, Sendable, CustomStringConvertible {
    /// Bytes this instance allocated and owns.
    public var ownedBytes: Int
    /// Bytes of immutable tables shared by every instance with the same configuration.
    public var sharedBytes: Int
    /// Bytes of scratch a call takes from the calling thread's workspace, at most, the units it
    /// calls included: per thread, not per stream (every stream a thread processes uses the same
    /// workspace; each thread that processes streams holds one). Sums of footprints add it, which
    /// is what a call that nests the units takes and an upper bound for units run one after the
    /// other.
    public var workspaceBytes: Int

    /// Creates a footprint.
    public init(ownedBytes: Int = 0, sharedBytes: Int = 0, workspaceBytes: Int = 0) {
        self.ownedBytes = ownedBytes
        self.sharedBytes = sharedBytes
        self.workspaceBytes = workspaceBytes
    }

    /// The footprints added.
    public static func + (a: MemoryFootprint, b: MemoryFootprint) -> MemoryFootprint {
        MemoryFootprint(
            ownedBytes: a.ownedBytes + b.ownedBytes, sharedBytes: a.sharedBytes + b.sharedBytes,
            workspaceBytes: a.workspaceBytes + b.workspaceBytes)
    }

    /// Adds `b`.
    public static func += (a: inout MemoryFootprint, b: MemoryFootprint) { a = a + b }

    /// `owned N B, shared M B`, and `, workspace K B per thread` when the unit takes scratch from
    /// the thread's workspace.
    public var description: String {
        "owned \(ownedBytes) B, shared \(sharedBytes) B" + (workspaceBytes > 0 ? ", workspace \(workspaceBytes) B per thread" : "")
    }

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
