// Which peer libraries this machine has, found at run time with dlopen (CBenchReferences/Peers.c).
import CBenchReferences

/// A peer library dspbench can load.
enum PeerLibrary: CaseIterable {
    case soxr, samplerate, speexdsp, ebur128

    var cValue: cbs_peer_library {
        switch self {
        case .soxr: CBS_PEER_SOXR
        case .samplerate: CBS_PEER_SAMPLERATE
        case .speexdsp: CBS_PEER_SPEEXDSP
        case .ebur128: CBS_PEER_EBUR128
        }
    }

    /// The name people know it by.
    var displayName: String {
        switch self {
        case .soxr: "libsoxr"
        case .samplerate: "libsamplerate"
        case .speexdsp: "speexdsp"
        case .ebur128: "libebur128"
        }
    }

    /// The shared object dlopen is given.
    var soname: String { String(cString: cbs_peer_soname(cValue)) }

    /// The suite it is compared in.
    var suite: Suite { self == .ebur128 ? .loudness : .resample }
}

/// The outcome of loading one peer.
struct PeerStatus: Codable, Equatable {
    var name: String
    var soname: String
    var available: Bool
    var version: String?
    /// Why it is absent.
    var reason: String?

    enum CodingKeys: String, CodingKey {
        case name, soname, available, version, reason
    }
}

/// The peers found on this machine (all absent unless loaded).
struct PeerLibraries {
    private(set) var statuses: [PeerLibrary: PeerStatus] = [:]

    /// No peers (a run without `--compare`).
    static let none = PeerLibraries()

    /// Tries to load every peer the `suites` use.
    static func load(for suites: [Suite]) -> PeerLibraries {
        var result = PeerLibraries()
        for library in PeerLibrary.allCases
            where suites.contains(library.suite) || (library == .soxr && suites.contains(.pipeline)) {
            var reason = [CChar](repeating: 0, count: 512)
            let ok = cbs_peer_load(library.cValue, &reason, reason.count) != 0
            let version = String(cString: cbs_peer_version(library.cValue))
            result.statuses[library] = PeerStatus(
                name: library.displayName, soname: library.soname, available: ok,
                version: ok && !version.isEmpty ? version : nil,
                reason: ok ? nil : string(fromCBuffer: reason))
        }
        return result
    }

    func isAvailable(_ library: PeerLibrary) -> Bool { statuses[library]?.available ?? false }

    /// Statuses in a fixed order, for the report.
    var orderedStatuses: [PeerStatus] { PeerLibrary.allCases.compactMap { statuses[$0] } }
}
