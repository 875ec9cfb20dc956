// dspbench: the benchmark harness users run on their own machines.
import ArgumentParser
import CLISupport

@main
struct DSPBench: ParsableCommand {
    /// Runs the command with ``ToolMain``: on a stderr that is not a terminal, a failure is
    /// one JSON line like the logs.
    static func main() {
        ToolMain.run(Self.self, label: "dspbench", arguments: Array(CommandLine.arguments.dropFirst()))
    }

    static let configuration = CommandConfiguration(
        commandName: "dspbench",
        abstract: "Measure SpeechDSP on this machine, side by side with peer libraries.",
        discussion: """
            Data goes to stdout (a table, or one JSON document with --json); progress and logs \
            go to stderr (one JSON object per line when stderr is not a terminal). See \
            docs/benchmarks.md for the method and the JSON schema. To convert audio files for a \
            recognizer (16 kHz mono PCM WAV or FLAC), use dspscore convert.
            """,
        version: ToolVersion.text(tool: "dspbench"),
        subcommands: [RunCommand.self, CompareCommand.self, ResampleCommand.self, DetectCommand.self, MachineCommand.self])
}
