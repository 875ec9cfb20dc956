import DSPCore

/// Compares two values by their descriptions: for outputs without `Equatable` (or with NaN
/// fields), Float's description is exact (the shortest text that reads back to the same value),
/// so equal descriptions mean equal values, NaN included.
public func sameDescription<T>(_ a: T, _ b: T) -> Bool { String(describing: a) == String(describing: b) }

/// The allocating tier of a streaming unit against its hot tier on the same input: `processAll`
/// on an array and on a span, `process` on random array chunks and on 1024-sample span chunks
/// followed by `flush()`, the same object again after a `processAll` (it flushes, so resets),
/// and the edge cases — an empty stream and a one-sample stream. The reference is the hot tier
/// (`process(_:into:)` with `maxOutputCount` room, then `flush(into:)`) on one buffer. Returns
/// the failures.
public func checkArrayTier<P: StreamingProcessor>(
    _ make: () throws -> P, input: [P.InputSample], same: (P.OutputSample, P.OutputSample) -> Bool
) rethrows -> [String] {
    var failures: [String] = []
    func compare(_ got: [P.OutputSample], _ reference: [P.OutputSample], _ what: String) {
        if got.count != reference.count {
            failures.append("\(P.self) \(what): \(got.count) outputs, the hot tier \(reference.count)")
        } else if let i = got.indices.first(where: { !same(got[$0], reference[$0]) }) {
            failures.append("\(P.self) \(what): output \(i) differs from the hot tier's (\(got[i]) vs \(reference[i]))")
        }
    }
    let reference = runStream(try make(), input, chunking: .whole)

    let unit = try make()
    compare(unit.processAll(input), reference, "processAll([…])")
    compare(unit.processAll(input), reference, "processAll again on the same object")
    compare(try make().processAll(input.span), reference, "processAll(span)")

    let chunked = try make()
    var output: [P.OutputSample] = []
    var offset = 0
    for size in Chunking.random.sizes(total: input.count, seed: 11) {
        output += chunked.process(Array(input[offset..<(offset + size)]))
        offset += size
    }
    output += chunked.flush()
    compare(output, reference, "process([…]) in random chunks + flush()")

    let spans = try make()
    output = []
    offset = 0
    for size in Chunking.blocks1024.sizes(total: input.count) {
        output += spans.process(input[offset..<(offset + size)].span)
        offset += size
    }
    output += spans.flush()
    compare(output, reference, "process(span) in 1024-sample chunks + flush()")

    compare(try make().processAll([]), runStream(try make(), [], chunking: .whole), "processAll([]) (empty stream)")
    compare(try make().flush(), runStream(try make(), [], chunking: .whole), "flush() of a fresh unit")
    if let first = input.first {
        compare(try make().processAll([first]), runStream(try make(), [first], chunking: .whole), "one-sample stream")
    }
    return failures
}

/// ``StreamAnalyzer/analyze(_:)`` (array and span) against the hot tier followed by
/// `finalize()`: the same outputs and the same summary; also for an empty stream. Returns the
/// failures.
public func checkAnalyze<P: StreamAnalyzer>(
    _ make: () throws -> P, input: [P.InputSample], same: (P.OutputSample, P.OutputSample) -> Bool,
    sameSummary: (P.Summary, P.Summary) -> Bool = sameDescription
) rethrows -> [String] {
    var failures: [String] = []
    for samples in [input, []] {
        let hot = try make()
        let outputs = runStream(hot, samples, chunking: .whole)
        let summary = hot.finalize()
        for (what, analysis) in [
            ("analyze([…])", try make().analyze(samples)), ("analyze(span)", try make().analyze(samples.span)),
        ] {
            let label = "\(P.self) \(what) of \(samples.count) samples"
            if analysis.outputs.count != outputs.count || zip(analysis.outputs, outputs).contains(where: { !same($0, $1) }) {
                failures.append("\(label): outputs differ from the hot tier's (\(analysis.outputs.count) vs \(outputs.count))")
            }
            if !sameSummary(analysis.summary, summary) {
                failures.append("\(label): summary \(analysis.summary) differs from the hot tier's \(summary)")
            }
        }
    }
    return failures
}
