// The DSPPipeline catalog's overview snippet, compiled by QuickStartTests.

import DSPPipeline

func pipelineOverview(_ input: UnsafeBufferPointer<Float>, send: (Slice<UnsafeMutableBufferPointer<Int16>>) -> Void) throws {
    // snippet: pipeline-overview
    let frontEnd = try SpeechFrontEnd(configuration: .init(inputRate: 48_000, channelCount: 2))
    let sizes = frontEnd.bufferSizes(forMaxInputCount: 2048)  // any push of up to 2048 samples, and the flush
    let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: sizes.outputCapacity)
    let events = FrontEndEventBuffer(capacity: sizes.eventCapacity)

    let result = frontEnd.process(input, into: output, events: events)
    send(output[..<result.produced])
    for event in events {
        switch event {
        case .started(let activity, let t): print("\(activity) from \(t.seconds) s")
        case .ended(let activity, let t): print("\(activity) until \(t.seconds) s")
        case .environment(let m, _): print(m.categoryKey, m.recommendation)
        case .clipping(let c): print("\(c.clippedSampleCount) clipped at \(c.start.seconds) s")
        case .levels: break
        }
    }
    // snippet end
    _ = frontEnd.flush(into: output, events: events)
    output.deallocate()
}
