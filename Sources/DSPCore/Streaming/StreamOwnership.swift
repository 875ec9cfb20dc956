import Synchronization

/// The ownership flag that makes a streaming unit `Sendable`.
///
/// A unit holds its stream's state in memory it owns (unsafe pointers allocated in `init`), and
/// every call that reads or changes that state first takes this flag with an atomic
/// compare-and-exchange (acquire) and gives it back at return (release). So:
/// - calls made one after another — on one thread, or on several, handing the unit over (a task
///   that moves to another executor, a queue, an actor) — are ordered: each sees everything the
///   previous one wrote, with no data race;
/// - two *overlapping* calls on one unit from two threads are a programming error (one stream,
///   one caller at a time) and stop the program with a message naming the unit, like Swift's
///   exclusivity checks, instead of racing.
///
/// That is what `@unchecked Sendable` on the units rests on: the compiler cannot see the flag,
/// but no path reaches the mutable state without it. Uncontended, it costs one atomic
/// compare-and-exchange and one store per call — nothing against a call's work, never a lock,
/// never an allocation (the real-time contract holds). `SpeechFrontEnd` has used the same flag
/// since it became `Sendable`.
@usableFromInline
package struct StreamOwnership: ~Copyable {
    @usableFromInline let busy: Atomic<Bool>

    /// A free flag.
    @inlinable
    package init() {
        busy = Atomic(false)
    }

    /// Takes the flag; false when another call holds it.
    @inlinable @inline(__always)
    package borrowing func acquire() -> Bool {
        busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    }

    /// Gives the flag back, publishing the call's writes to the next holder.
    @inlinable @inline(__always)
    package borrowing func release() {
        busy.store(false, ordering: .releasing)
    }
}
