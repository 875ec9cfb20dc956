import CSndFile
import Synchronization

/// `sf_open` with its error read under one process-wide lock.
///
/// libsndfile reports a failed open through process globals — the number `sf_error(NULL)`
/// returns, the text `sf_strerror(NULL)` returns (for system errors a copy of the message in a
/// static buffer) — written by whichever open failed last. Two opens failing at once on two
/// threads (`dspscore --jobs`) could read each other's error and be classified by it. Every
/// `sf_open` in DSPIO goes through here: the open and the reading of its error happen under
/// ``lock``, so the error read is the error of this open. Successful opens take the lock too
/// (libsndfile does not document that a success leaves the globals alone); `sf_open` parses the
/// header only, so the lock is held for a few small reads, never while decoding audio.
enum SndFileOpen {
    /// Serialises `sf_open` and the reading of its global error.
    static let lock = Mutex<Void>(())

    /// libsndfile's error for a failed open: `sf_error(NULL)` and `sf_strerror(NULL)`.
    struct Failure: Error {
        var code: Int32
        var message: String
    }

    /// `sf_open(path, mode, info)` on the bytes of an escaped path (``PathBytes``); `"-"` means
    /// a file named `-` (libsndfile would take it for standard input). Callers check first that
    /// the path holds no NUL.
    static func open(_ path: String, mode: Int32, info: inout SF_INFO) -> Result<OpaquePointer, Failure> {
        let name = path == "-" ? "./-" : path
        return PathBytes.withCString(name) { cName in
            // The handle leaves the lock as its address (a pointer is not `Sendable`).
            let (address, failure) = lock.withLock { _ -> (Int, Failure?) in
                if let handle = sf_open(cName, mode, &info) { return (Int(bitPattern: handle), nil) }
                return (0, Failure(code: sf_error(nil), message: String(cString: sf_strerror(nil))))
            }
            if let handle = OpaquePointer(bitPattern: address) { return .success(handle) }
            return .failure(failure ?? Failure(code: 0, message: "sf_open failed"))
        }
    }
}
