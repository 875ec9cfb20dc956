#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The calling thread's scratch memory: buffers a unit needs during one call and never reads in
/// the next (FFT buffers, a frame's spectra, a model's activations), held once per thread instead
/// of once per stream.
///
/// A thread's workspace is a stack of bytes. A call opens a scope, ``enter(reserving:)``,
/// takes its buffers from it (``WorkspaceScope/take(_:count:)``, 64-byte aligned, contents
/// undefined: every buffer is written before it is read) and closes it at return
/// (``WorkspaceScope/leave()``), which gives the bytes back. Scopes nest: a unit whose callback
/// runs another unit — or another stream's unit, on the same thread — takes its buffers above
/// the caller's, so a buffer lent to a callback is never overwritten by what the callback does.
/// So N streams processed on one thread hold one workspace, whatever N is.
///
/// - **Where it lives.** One per thread, found with a POSIX thread-specific key
///   (`pthread_getspecific`; the key is read in the unit's `init`, not on the hot path) and freed
///   by the key's destructor when the thread exits. No lock is taken, and nothing is shared
///   between threads, so a stream handed from one thread to another between calls (ordered by
///   its ``StreamOwnership`` flag) simply uses the new thread's workspace.
/// - **When it allocates.** The workspace grows in chunks. ``enter(reserving:)`` makes sure
///   the chunk in use has the bytes the whole call will take (the outermost unit reserves for
///   the units it calls), moving to the next chunk, or allocating one, when it does not: that
///   happens on a thread's first call, and again only when a call on that thread needs more than
///   any call before it (a larger configuration, or a callback that re-enters another unit the
///   first time). Chunks are kept until the thread exits, so every later call allocates nothing.
///   The first call on each thread is therefore not allocation-free: warm a thread up (one push
///   of each configuration it will run) where that matters, as the malloc benchmarks do.
/// - **What it costs.** ``MemoryFootprint/workspaceBytes`` reports what a unit takes per call;
///   ``allocatedBytes`` and ``currentThreadBytes`` what the workspaces hold.
@usableFromInline
package struct ScratchWorkspace: Sendable {
    /// The thread-specific key of every thread's workspace.
    @usableFromInline let key: pthread_key_t

    /// The process's workspace key (created on first use; read it in `init`, then use the copy).
    package init() {
        key = scratchWorkspaceKey
    }

    /// Bytes a buffer of `count` values of `T` takes from a workspace: its size rounded up to 64.
    @inlinable
    package static func bytes<T>(_: T.Type, _ count: Int) -> Int {
        (MemoryLayout<T>.stride * Swift.max(0, count) + 63) & ~63
    }

    /// Opens a scope on the calling thread's workspace with at least `bytes` (rounded up to a
    /// multiple of 64) contiguous bytes free for this scope and the scopes nested in it
    /// (allocating only as described above). Close it with ``WorkspaceScope/leave()`` before
    /// returning.
    @inlinable @inline(__always)
    package func enter(reserving requested: Int) -> WorkspaceScope {
        let bytes = (Swift.max(0, requested) + 63) & ~63
        let state: UnsafeMutablePointer<WorkspaceState>
        if let raw = pthread_getspecific(key) {
            state = raw.assumingMemoryBound(to: WorkspaceState.self)
        } else {
            state = WorkspaceState.create(key: key)
        }
        let mark = state.pointee.current
        let offset = state.pointee.offset
        if offset + bytes > mark.pointee.capacity {
            WorkspaceState.advance(state, reserving: bytes)
        }
        return WorkspaceScope(
            state: state, markChunk: mark, markOffset: offset,
            limit: state.pointee.offset + bytes)
    }

    /// Bytes held by every thread's workspace now (the chunks they allocated, kept until each
    /// thread exits).
    package static var allocatedBytes: Int { workspaceBytesAllocated.load(ordering: .relaxed) }

    /// Bytes held by the calling thread's workspace (0 before its first call).
    package var currentThreadBytes: Int {
        guard let raw = pthread_getspecific(key) else { return 0 }
        return raw.assumingMemoryBound(to: WorkspaceState.self).pointee.totalBytes
    }
}

/// A scope opened by ``ScratchWorkspace/enter(reserving:)``: buffers taken from it are valid
/// until ``leave()``.
@usableFromInline
package struct WorkspaceScope {
    @usableFromInline let state: UnsafeMutablePointer<WorkspaceState>
    @usableFromInline let markChunk: UnsafeMutablePointer<WorkspaceChunk>
    @usableFromInline let markOffset: Int
    /// The end of what this scope reserved, in the chunk it takes from.
    @usableFromInline let limit: Int

    @inlinable
    init(state: UnsafeMutablePointer<WorkspaceState>, markChunk: UnsafeMutablePointer<WorkspaceChunk>, markOffset: Int, limit: Int) {
        self.state = state
        self.markChunk = markChunk
        self.markOffset = markOffset
        self.limit = limit
    }

    /// `count` values of `T`, 64-byte aligned, uninitialised (contents left by earlier calls):
    /// ``ScratchWorkspace/bytes(_:_:)`` bytes of the reservation.
    ///
    /// - Precondition: the scope's reservation holds them.
    @inlinable @inline(__always)
    package func take<T>(_: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let offset = state.pointee.offset
        let end = offset + ScratchWorkspace.bytes(T.self, count)
        precondition(end <= limit, "ScratchWorkspace: a unit took more than it reserved")
        state.pointee.offset = end
        return (state.pointee.current.pointee.base + offset).bindMemory(to: T.self, capacity: Swift.max(1, count))
    }

    /// ``take(_:count:)`` as a buffer.
    @inlinable @inline(__always)
    package func buffer<T>(_: T.Type, count: Int) -> UnsafeMutableBufferPointer<T> {
        UnsafeMutableBufferPointer(start: take(T.self, count: count), count: count)
    }

    /// Gives back everything taken since the scope was opened (the scopes nested in it must have
    /// been left).
    @inlinable @inline(__always)
    package func leave() {
        state.pointee.current = markChunk
        state.pointee.offset = markOffset
    }
}

/// One allocation of a workspace, 64-byte aligned.
@usableFromInline
package struct WorkspaceChunk {
    @usableFromInline var base: UnsafeMutableRawPointer
    @usableFromInline var capacity: Int
    @usableFromInline var next: UnsafeMutablePointer<WorkspaceChunk>?
}

/// A thread's workspace: its chunks, the one in use and how much of it is taken.
@usableFromInline
package struct WorkspaceState {
    @usableFromInline var current: UnsafeMutablePointer<WorkspaceChunk>
    @usableFromInline var offset: Int
    @usableFromInline var first: UnsafeMutablePointer<WorkspaceChunk>
    @usableFromInline var totalBytes: Int

    /// Smallest chunk allocated, bytes.
    static let minimumChunk = 16 * 1024

    /// The calling thread's workspace, made now (its first chunk comes with the first
    /// reservation that needs one).
    @usableFromInline
    static func create(key: pthread_key_t) -> UnsafeMutablePointer<WorkspaceState> {
        let empty = makeChunk(capacity: 0)
        let state = UnsafeMutablePointer<WorkspaceState>.allocate(capacity: 1)
        state.initialize(to: WorkspaceState(current: empty, offset: 0, first: empty, totalBytes: 0))
        pthread_setspecific(key, state)
        return state
    }

    /// Moves to a chunk after the current one with `bytes` free from its start: the next one if
    /// it is large enough, else a new one put before it.
    @usableFromInline @inline(never)
    static func advance(_ state: UnsafeMutablePointer<WorkspaceState>, reserving bytes: Int) {
        let current = state.pointee.current
        if let next = current.pointee.next, next.pointee.capacity >= bytes {
            state.pointee.current = next
        } else {
            let capacity = Swift.max(minimumChunk, (bytes + 4095) & ~4095)
            let chunk = makeChunk(capacity: capacity)
            chunk.pointee.next = current.pointee.next
            current.pointee.next = chunk
            state.pointee.current = chunk
            state.pointee.totalBytes += capacity
            workspaceBytesAllocated.add(capacity, ordering: .relaxed)
        }
        state.pointee.offset = 0
    }

    static func makeChunk(capacity: Int) -> UnsafeMutablePointer<WorkspaceChunk> {
        let base = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(64, capacity), alignment: 64)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: Swift.max(64, capacity))
        let chunk = UnsafeMutablePointer<WorkspaceChunk>.allocate(capacity: 1)
        chunk.initialize(to: WorkspaceChunk(base: base, capacity: capacity, next: nil))
        return chunk
    }

    /// Frees a thread's workspace (the key's destructor, at thread exit).
    static func destroy(_ raw: UnsafeMutableRawPointer) {
        let state = raw.assumingMemoryBound(to: WorkspaceState.self)
        var chunk: UnsafeMutablePointer<WorkspaceChunk>? = state.pointee.first
        while let c = chunk {
            chunk = c.pointee.next
            c.pointee.base.deallocate()
            c.deallocate()
        }
        workspaceBytesAllocated.subtract(state.pointee.totalBytes, ordering: .relaxed)
        state.deallocate()
    }
}

/// Bytes held by all threads' workspaces.
let workspaceBytesAllocated = Atomic<Int>(0)

/// The key of every thread's ``WorkspaceState``; its destructor frees a thread's workspace when
/// the thread exits.
let scratchWorkspaceKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
    let status = pthread_key_create(&key) { raw in WorkspaceState.destroy(raw) }
    #else
    let status = pthread_key_create(&key) { raw in
        if let raw { WorkspaceState.destroy(raw) }
    }
    #endif
    precondition(status == 0, "ScratchWorkspace: pthread_key_create failed (\(status))")
    return key
}()
