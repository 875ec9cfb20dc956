// libebur128 behind a Swift handle.
import CBenchReferences

/// A libebur128 state measuring integrated loudness and loudness range, with true peak or
/// sample peak; owned.
final class PeerLoudnessMeter {
    private var handle: OpaquePointer?
    let channelCount: Int
    let sampleRate: Int
    let truePeak: Bool

    init(channelCount: Int, sampleRate: Int, truePeak: Bool) throws(PeerError) {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.truePeak = truePeak
        try rebuild()
    }

    deinit { cbs_peer_loudness_destroy(handle) }

    /// libebur128 has no reset: the state is destroyed and created again.
    func rebuild() throws(PeerError) {
        cbs_peer_loudness_destroy(handle)
        var reason = [CChar](repeating: 0, count: 512)
        handle = cbs_peer_loudness_create(
            UInt32(channelCount), UInt(sampleRate), truePeak ? 1 : 0, &reason, reason.count)
        if handle == nil { throw PeerError(message: string(fromCBuffer: reason)) }
    }

    /// ebur128_add_frames_float; false on error.
    @inline(__always)
    func add(_ input: UnsafeBufferPointer<Float>) -> Bool {
        cbs_peer_loudness_add(handle, input.baseAddress, input.count / channelCount) == 0
    }

    /// Integrated loudness so far, LUFS.
    var integratedLUFS: Double { cbs_peer_loudness_integrated(handle) }
}
