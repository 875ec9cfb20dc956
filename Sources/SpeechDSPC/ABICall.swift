// What every exported function shares: the status codes, the thread-local message, and the
// checks that turn bad arguments (NULL, negative counts, partial frames) into codes, so no
// Swift error or trap crosses the C boundary.

import CSpeechDSP
import DSPCore
import Synchronization

/// A failed call: its status code and the message `sdsp_last_error()` will return.
struct ABIFailure: Error {
    var status: sdsp_status
    var message: String

    static func nullPointer(_ name: String) -> ABIFailure {
        ABIFailure(status: SDSP_ERROR_NULL_POINTER, message: "\(name) is NULL")
    }

    static func invalidArgument(_ message: String) -> ABIFailure {
        ABIFailure(status: SDSP_ERROR_INVALID_ARGUMENT, message: message)
    }

    static func configuration(_ error: ConfigurationError) -> ABIFailure {
        ABIFailure(status: SDSP_ERROR_UNSUPPORTED_CONFIGURATION, message: error.description)
    }
}

/// Runs `body` and returns `SDSP_OK`, or records the failure's message for this thread and
/// returns its code.
@inline(__always)
func abiCall(_ body: () throws(ABIFailure) -> Void) -> sdsp_status {
    do {
        try body()
        return SDSP_OK
    } catch {
        sdsp__set_error(error.message)
        return error.status
    }
}

/// Runs `body`, turning a ``ConfigurationError`` into `SDSP_ERROR_UNSUPPORTED_CONFIGURATION`.
@inline(__always)
func configured<T>(_ body: () throws(ConfigurationError) -> T) throws(ABIFailure) -> T {
    do {
        return try body()
    } catch {
        throw .configuration(error)
    }
}

/// `count` elements at `pointer`: refuses a negative count and a NULL pointer with a positive
/// count (NULL with 0 is an empty buffer).
func inputBuffer<T>(_ pointer: UnsafePointer<T>?, _ count: Int64, _ name: String) throws(ABIFailure) -> UnsafeBufferPointer<T> {
    guard count >= 0 else { throw .invalidArgument("\(name) count \(count) is negative") }
    guard count <= Int64(Int.max / 8) else { throw .invalidArgument("\(name) count \(count) is too large") }
    guard let pointer else {
        if count == 0 { return UnsafeBufferPointer(start: nil, count: 0) }
        throw .nullPointer(name)
    }
    return UnsafeBufferPointer(start: pointer, count: Int(count))
}

/// `capacity` elements at `pointer`, for the library to write; as ``inputBuffer(_:_:_:)``.
func outputBuffer<T>(_ pointer: UnsafeMutablePointer<T>?, _ capacity: Int64, _ name: String) throws(ABIFailure) -> UnsafeMutableBufferPointer<T> {
    guard capacity >= 0 else { throw .invalidArgument("\(name) capacity \(capacity) is negative") }
    guard capacity <= Int64(Int.max / 8) else { throw .invalidArgument("\(name) capacity \(capacity) is too large") }
    guard let pointer else {
        if capacity == 0 { return UnsafeMutableBufferPointer(start: nil, count: 0) }
        throw .nullPointer(name)
    }
    return UnsafeMutableBufferPointer(start: pointer, count: Int(capacity))
}

/// A required result pointer.
func required<T>(_ pointer: UnsafeMutablePointer<T>?, _ name: String) throws(ABIFailure) -> UnsafeMutablePointer<T> {
    guard let pointer else { throw .nullPointer(name) }
    return pointer
}

/// Checks a channel count (1…64, the library's range) and that `count` samples are whole frames.
func checkFrames(count: Int, channelCount: Int32) throws(ABIFailure) {
    guard (1...64).contains(channelCount) else {
        throw .invalidArgument("channel_count \(channelCount) is out of range (expected 1…64)")
    }
    guard count % Int(channelCount) == 0 else {
        throw .invalidArgument("count \(count) is not a whole number of frames of \(channelCount) channels")
    }
}

/// The resampler preset for an `SDSP_QUALITY_*` value.
func quality(_ value: Int32) throws(ABIFailure) -> Resampler.Quality {
    switch value {
    case SDSP_QUALITY_LOW_LATENCY: .lowLatency
    case SDSP_QUALITY_DEFAULT: .default
    case SDSP_QUALITY_HIGH: .high
    default: throw .invalidArgument("quality \(value) is not an SDSP_QUALITY_* value (0 low latency, 1 default, 2 high)")
    }
}

/// One caller at a time per handle: a second, overlapping call gets `SDSP_ERROR_INVALID_STATE`
/// instead of the library's exclusivity trap.
final class HandleGate: Sendable {
    private let busy = Atomic<Bool>(false)

    func enter(_ name: String) throws(ABIFailure) {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw ABIFailure(
                status: SDSP_ERROR_INVALID_STATE,
                message: "overlapping calls on one \(name) from two threads (one stream, one caller at a time)")
        }
    }

    func leave() { busy.store(false, ordering: .releasing) }
}

// MARK: - Version

/// The library version, as a C string in static storage.
nonisolated(unsafe) private let versionCString: UnsafeMutablePointer<CChar> = {
    let utf8 = Array(SpeechDSPVersion.current.utf8CString)
    let storage = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
    storage.initialize(from: utf8, count: utf8.count)
    return storage
}()

@_cdecl("sdsp_version")
public func sdspVersion() -> UnsafePointer<CChar> {
    UnsafePointer(versionCString)
}

@_cdecl("sdsp_abi_version")
public func sdspABIVersion() -> Int32 {
    SDSP_ABI_VERSION
}
