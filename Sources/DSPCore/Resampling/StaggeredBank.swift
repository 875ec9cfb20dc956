// The coefficient layout of the staggered-groups polyphase kernel (`cdsp_polyphase_groups`),
// for large phase counts (44.1 → 24 kHz, 22.05 → 16 kHz, …).

/// The bank of a large-L polyphase stage rearranged for evaluation across outputs.
///
/// Outputs go in groups of 8 consecutive ones — bank slots 8g…8g + 7, so one group pattern per
/// 8 slots, P = L / 8 patterns — one vector lane each. With slot 0 at phase 0, output slot σ
/// reads the window ending at frame f(σ) = ⌊σ·M / L⌋ (relative), i.e. starting at
/// s(σ) = f(σ) − (T − 1). Group g's *chunk* is the frames s(8g) ..< s(8g + 8)
/// (`spans[g]` = f(8g + 8) − f(8g) frames, ⌊8M/L⌋ or one more). A group starts accumulating
/// at its own chunk and ends after ``width`` chunks, the fewest that cover every lane's window:
/// f(8g + 7) + T ≤ f(8g + 8·width). So ``width`` groups are in flight at any frame, and the
/// kernel broadcasts each input sample once to all of them.
///
/// Layout (``coefficients``, 64-byte aligned): for chunk pattern c, at `chunkOffsets[c]`, for
/// each of its frames i and each slot k < width (group c − width + 1 + k), 8 floats — lane ℓ
/// holds tap `i + s(8c) − s(σ)` of slot σ = 8(c − width + 1 + k) + ℓ's row, or 0 outside the
/// row. M × width × 8 floats in all (22.05 → 16 kHz `.default`: 441 × 8 × 8, 110 KB; 44.1 → 24
/// kHz: 147 × 3 × 8, 14 KB).
struct StaggeredBank {
    /// The most groups in flight the kernel takes (its accumulators stay in registers).
    static let maximumWidth = 12

    /// Groups in flight for L/M with `taps`-tap rows, or nil when L is not a multiple of 8 or
    /// more than ``maximumWidth`` would be needed.
    static func width(phaseCount l: Int, step m: Int, taps: Int) -> Int? {
        guard l % 8 == 0, l >= 8, taps >= 1 else { return nil }
        func frame(_ slot: Int) -> Int { slot * m / l }  // slot ≥ 0 here
        var width = 1
        for g in 0..<(l / 8) {
            while frame(8 * g + 7) + taps > frame(8 * g + 8 * width) {
                width += 1
                if width > maximumWidth { return nil }
            }
        }
        return width
    }

    /// Groups in flight.
    let width: Int
    /// Group patterns, L / 8.
    let patterns: Int
    /// The rearranged coefficients, M × ``width`` × 8 floats.
    let coefficients: UnsafeMutablePointer<Float>
    /// Start of each chunk pattern's block in ``coefficients``, in floats.
    let chunkOffsets: UnsafeMutablePointer<UInt32>
    /// Frames in each chunk pattern.
    let spans: UnsafeMutablePointer<UInt32>
    /// Per slot σ: f(σ) − f(8⌊σ/8⌋), how many frames its window starts after its group's.
    let laneOffsets: UnsafeMutablePointer<Int>
    /// The most frames in a chunk (⌊8M/L⌋ or one more).
    let maxSpan: Int
    /// Bytes allocated in `init`.
    let allocatedBytes: Int

    /// Rearranges `bank` (L rows of `taps` floats, by slot, as ``PolyphaseLayout/fill(_:inputRate:rowStep:)``
    /// writes them). `width` must come from ``width(phaseCount:step:taps:)``.
    init(bank: UnsafePointer<Float>, phaseCount l: Int, step m: Int, taps t: Int, width w: Int) {
        width = w
        patterns = l / 8
        // Floor division, for the groups before slot 0 that the first patterns' slots hold.
        func frame(_ slot: Int) -> Int {
            let product = slot * m
            return product >= 0 ? product / l : -((-product + l - 1) / l)
        }
        let total = m * w * 8
        coefficients = UnsafeMutableRawPointer.allocate(byteCount: total * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: total)
        coefficients.initialize(repeating: 0, count: total)
        chunkOffsets = .allocate(capacity: patterns)
        spans = .allocate(capacity: patterns)
        laneOffsets = .allocate(capacity: l)
        allocatedBytes = MemoryFootprint.bytes(Float.self, total) + 2 * MemoryFootprint.bytes(UInt32.self, patterns) + MemoryFootprint.bytes(Int.self, l)
        for slot in 0..<l { laneOffsets[slot] = frame(slot) - frame(slot - slot % 8) }
        var offset = 0
        var longest = 0
        for c in 0..<patterns {
            let span = frame(8 * c + 8) - frame(8 * c)
            longest = Swift.max(longest, span)
            chunkOffsets[c] = UInt32(offset)
            spans[c] = UInt32(span)
            for i in 0..<span {
                for k in 0..<w {
                    let group = c - (w - 1) + k
                    for lane in 0..<8 {
                        let slot = 8 * group + lane
                        let tap = frame(8 * c) + i - frame(slot)
                        guard tap >= 0, tap < t else { continue }
                        let row = ((slot % l) + l) % l
                        coefficients[offset + (i * w + k) * 8 + lane] = bank[row * t + tap]
                    }
                }
            }
            offset += span * w * 8
        }
        maxSpan = longest
    }

    /// Frees the tables.
    func deallocate() {
        UnsafeMutableRawPointer(coefficients).deallocate()
        chunkOffsets.deallocate()
        spans.deallocate()
        laneOffsets.deallocate()
    }
}
