// The machine a run was made on: CPU model and the vector extensions that matter, cores, OS,
// and which compilation of the C kernels ran.
import CDSPKernels
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where and how a result was measured.
struct MachineInfo: Codable, Equatable {
    /// `model name` from /proc/cpuinfo.
    var cpuModel: String
    /// The vector extensions of interest and whether the CPU has them (/proc/cpuinfo `flags`).
    var cpuFlags: CPUFlags
    /// Online logical CPUs (sysconf(_SC_NPROCESSORS_ONLN)).
    var logicalCores: Int
    /// Distinct (physical id, core id) pairs in /proc/cpuinfo, when it lists them.
    var physicalCores: Int?
    /// `uname -srm`.
    var operatingSystem: String
    /// The kernel's clock source (/sys/devices/system/clocksource/clocksource0/current_clocksource).
    var clockSource: String?
    /// The C kernels' dispatch level this process ran (`cdsp_dispatch_level`): "avx512", "v3",
    /// "fma", "sse2" — the best the CPU has, or lower when `CDSP_DISPATCH_LEVEL` pinned it — or
    /// "none" (a build without run-time dispatch). Absent in reports made before it was recorded.
    var kernelDispatch: String?

    enum CodingKeys: String, CodingKey {
        case cpuModel = "cpu_model", cpuFlags = "cpu_flags", logicalCores = "logical_cores"
        case physicalCores = "physical_cores", operatingSystem = "os", clockSource = "clock_source"
        case kernelDispatch = "kernel_dispatch"
    }

    /// The flags recorded; keys as users spell them.
    struct CPUFlags: Codable, Equatable {
        var sse41: Bool
        var avx: Bool
        var avx2: Bool
        var fma: Bool
        var avx512f: Bool

        enum CodingKeys: String, CodingKey {
            case sse41 = "sse4.1", avx, avx2, fma, avx512f
        }

        /// The flags present, space-separated.
        var summary: String {
            [("sse4.1", sse41), ("avx", avx), ("avx2", avx2), ("fma", fma), ("avx512f", avx512f)]
                .filter(\.1).map(\.0).joined(separator: " ")
        }
    }

    /// Reads this machine.
    static func current() -> MachineInfo {
        let cpuinfo = readTextFile("/proc/cpuinfo") ?? ""
        var model: String?
        var flags = Set<String>()
        var cores = Set<String>()
        var physicalID = ""
        for line in cpuinfo.split(separator: "\n", omittingEmptySubsequences: false) {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            switch key {
            case "model name", "Hardware", "uarch": if model == nil { model = value }
            case "flags", "Features": if flags.isEmpty { flags = Set(value.split(separator: " ").map(String.init)) }
            case "physical id": physicalID = value
            case "core id": cores.insert(physicalID + "/" + value)
            default: break
            }
        }
        var names = utsname()
        uname(&names)
        let os = [names.sysname, names.release, names.machine].map { field in
            withUnsafeBytes(of: field) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }.joined(separator: " ")
        return MachineInfo(
            cpuModel: model ?? "unknown",
            cpuFlags: CPUFlags(
                sse41: flags.contains("sse4_1"), avx: flags.contains("avx"), avx2: flags.contains("avx2"),
                fma: flags.contains("fma"), avx512f: flags.contains("avx512f")),
            logicalCores: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
            physicalCores: cores.isEmpty ? nil : cores.count,
            operatingSystem: os,
            clockSource: readTextFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")?
                .trimmingCharacters(in: .whitespacesAndNewlines),
            kernelDispatch: String(cString: cdsp_dispatch_level_name(cdsp_dispatch_level())))
    }
}

/// The whole text of a (possibly procfs) file, or nil.
func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 65_536)
    while true {
        let got = fread(&block, 1, block.count, file)
        if got <= 0 { break }
        bytes.append(contentsOf: block[0..<got])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The build configuration of this binary.
var buildConfiguration: String {
    #if DEBUG
    "debug"
    #else
    "release"
    #endif
}

/// The command line as typed (arguments with spaces or quotes are single-quoted).
var commandLineText: String {
    CommandLine.arguments.enumerated().map { index, argument in
        let shown = index == 0 ? (argument as NSString).lastPathComponent : argument
        let safe = shown.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,%+@".contains($0) }
        return safe && !shown.isEmpty ? shown : "'" + shown.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }.joined(separator: " ")
}

/// Now, ISO 8601 in UTC.
var isoDateNow: String {
    ISO8601DateFormatter().string(from: Date())
}
