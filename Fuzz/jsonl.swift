// libFuzzer target `jsonl`: bytes → JSON Lines for `dspscore report`, `merge` and `--resume`.
//
// The input is split at its first 0x00 byte (if any) into two JSON Lines files, so merge sees
// two shards; both are also read as the report's input and as a resumed output. Each reader must
// return (a summary, a merge error, diagnostics) for any bytes and never trap; a trap, an
// AddressSanitizer report or a leak is the finding. Built and run by scripts/fuzz.sh jsonl.
import DSPScoring

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let first = Array(bytes[..<split])
    let second = split < bytes.count ? Array(bytes[(split + 1)...]) : []

    // report: line by line, then the page.
    var summary = CorpusSummary()
    for (number, line) in first.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
        summary.add(lineBytes: Array(line), number: number + 1, source: "a")
    }
    _ = HTMLReport.render(summary, title: "fuzz", sources: ["a"])

    // merge: two shards.
    _ = try? ScoreMerging.merge([(label: "a", bytes: first), (label: "b", bytes: second)])

    // --resume: the earlier output, checked against a configuration.
    let provenance = FileScorer.Configuration().provenance
    _ = try? ScoreResume.completedRecords(fromJSONL: bytes, source: "o", provenance: provenance)
    return 0
}
