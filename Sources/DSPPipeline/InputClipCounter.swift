import DSPAnalysis
import DSPCore

/// Counts clipped and non-finite samples of the interleaved input in fixed windows of input
/// frames, so the reports depend only on stream positions, not on how the input was pushed.
final class InputClipCounter {
    let meter: LevelMeter
    let timeline: StreamTimeline
    let channelCount: Int
    /// Input frames per window.
    let windowFrames: Int
    private let windowSamples: Int
    /// Samples (all channels) of the current window seen so far.
    private var fill = 0
    private var windowIndex: Int64 = 0
    private var clipped = 0
    private var nonFinite = 0
    /// Clipped and non-finite samples since the last reset.
    private(set) var totalClipped = 0
    private(set) var totalNonFinite = 0

    init(clipThreshold: Float, timeline: StreamTimeline, channelCount: Int, windowFrames: Int) throws(ConfigurationError) {
        meter = try LevelMeter(clipThreshold: clipThreshold)
        self.timeline = timeline
        self.channelCount = channelCount
        self.windowFrames = windowFrames
        windowSamples = windowFrames * channelCount
    }

    /// Windows that `inputCount` more samples complete.
    func windowCount(forInputCount inputCount: Int) -> Int { (fill + inputCount) / windowSamples }

    func process(_ input: UnsafeBufferPointer<Float>, events: FrontEndEventBuffer) {
        var offset = 0
        while offset < input.count {
            let n = Swift.min(windowSamples - fill, input.count - offset)
            let level = meter.measure(UnsafeBufferPointer(rebasing: input[offset..<offset + n]))
            clipped += level.clippedCount
            nonFinite += level.nonFiniteCount
            totalClipped += level.clippedCount
            totalNonFinite += level.nonFiniteCount
            fill += n
            offset += n
            if fill == windowSamples { close(frames: windowFrames, events: events) }
        }
    }

    /// Reports a partial last window (frames rounded up: a partial interleaved frame counts).
    func flush(events: FrontEndEventBuffer) {
        if fill > 0 { close(frames: (fill + channelCount - 1) / channelCount, events: events) }
        fill = 0
        windowIndex = 0
    }

    private func close(frames: Int, events: FrontEndEventBuffer) {
        if clipped > 0 || nonFinite > 0 {
            events.append(.clipping(ClippingReport(
                start: timeline.time(inputFrame: windowIndex * Int64(windowFrames)), frameCount: frames,
                clippedSampleCount: clipped, nonFiniteSampleCount: nonFinite)))
        }
        windowIndex += 1
        fill = 0
        clipped = 0
        nonFinite = 0
    }

    func reset() {
        fill = 0
        windowIndex = 0
        totalClipped = 0
        totalNonFinite = 0
        clipped = 0
        nonFinite = 0
    }
}
