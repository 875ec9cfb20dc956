import DSPCore
/// A fixed-capacity ring of the last `capacity` values, with their running sum.
///
/// The sum is kept by adding each value and subtracting the one it replaces, and is summed
/// afresh from the stored values each time the ring wraps, so rounding left by a huge value
/// (1e12 among values near 1) is gone at most one wrap after the value left: the sum cannot
/// drift, however long the stream.
struct FloatRing {
    let storage: UnsafeMutableBufferPointer<Float>
    private(set) var count = 0
    private var next = 0
    private(set) var sum: Double = 0

    init(capacity: Int) {
        storage = .allocate(capacity: max(1, capacity))
        storage.initialize(repeating: 0)
    }

    func deallocate() { storage.deallocate() }
    var capacity: Int { storage.count }
    var mean: Float { count > 0 ? Float(sum / Double(count)) : 0 }

    /// Appends `value`, dropping the oldest when full. The slot wraps by a compare, not an
    /// integer division (sixteen rings are pushed per detector frame).
    @inline(__always)
    mutating func push(_ value: Float) {
        if count == capacity { sum -= Double(storage[next]) } else { count += 1 }
        storage[next] = value
        sum += Double(value)
        next += 1
        if next == capacity {
            next = 0
            resum()
        }
    }

    /// Sums the values held afresh (once per wrap: one add per push, amortized).
    private mutating func resum() {
        var total: Double = 0
        for i in 0..<count { total += Double(storage[i]) }
        sum = total
    }

    /// The value pushed `age` pushes ago (0 = the latest); 0 when not yet there.
    @inline(__always)
    func value(age: Int) -> Float {
        guard age < count else { return 0 }
        // next − 1 − age ≥ −capacity, as next ≥ 0 and age < count ≤ capacity.
        var slot = next - 1 - age
        if slot < 0 { slot += capacity }
        return storage[slot]
    }

    /// Largest value held (0 when empty).
    var maximum: Float {
        guard count > 0 else { return 0 }
        var m = storage[0]
        for i in 1..<count { m = max(m, storage[i]) }
        return m
    }

    /// Population standard deviation of the values held (0 when empty).
    var deviation: Float {
        guard count > 0 else { return 0 }
        let m = mean
        var v: Float = 0
        for i in 0..<count {
            let d = storage[i] - m
            v += d * d
        }
        return (v / Float(count)).squareRoot()
    }

    mutating func reset() {
        storage.update(repeating: 0)
        count = 0
        next = 0
        sum = 0
    }
}

extension FloatRing {
    /// Bytes of the ring's storage.
    var allocatedBytes: Int { MemoryFootprint.bytes(storage) }
}
