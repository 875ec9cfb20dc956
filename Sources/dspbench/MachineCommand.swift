// dspbench machine: the machine record every report carries, alone.
import ArgumentParser
import Foundation

struct MachineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "machine",
        abstract: "Print this machine as reports record it: CPU, flags, cores, OS, clock source, C kernel level.",
        discussion: """
            The C kernel level is the one this process runs: the best the CPU supports, or lower \
            when CDSP_DISPATCH_LEVEL (sse2, fma, v3, avx512) pins it. So \
            `CDSP_DISPATCH_LEVEL=v3 dspbench machine --json` shows whether this CPU runs v3.
            """)

    @Flag(help: "Write the record as JSON (the `machine` object of `dspbench run --json`).")
    var json = false

    func run() throws {
        let machine = MachineInfo.current()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(machine), as: UTF8.self))
            return
        }
        var cpu = "CPU: \(machine.cpuModel); \(machine.logicalCores) logical cores"
        if let physical = machine.physicalCores { cpu += " (\(physical) physical)" }
        print(cpu + "; flags: \(machine.cpuFlags.summary.isEmpty ? "none of interest" : machine.cpuFlags.summary)")
        print("OS: \(machine.operatingSystem); clock source: \(machine.clockSource ?? "unknown")")
        print("C kernels: \(machine.kernelDispatch ?? "not recorded")")
    }
}
