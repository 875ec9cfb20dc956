#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Immutable tables built once per key and shared by every unit built with the same key, for
/// as long as any of them holds the tables.
///
/// A thousand streams with the same configuration then hold one copy of their filter
/// coefficients, model weights or windows instead of a thousand (``MemoryFootprint/sharedBytes``
/// counts it once). The cache is used in `init` only: looking up takes a lock, the tables it
/// returns are immutable and read without one. It keeps weak references, so tables no unit
/// holds are freed, and entries whose tables are gone are swept when a new key is added.
///
/// The lock is a `pthread_mutex_t`, which ThreadSanitizer understands (the Synchronization
/// module's `Mutex` is a bare futex on Linux, which it does not, and reports the accesses it
/// guards as races).
public final class SharedTableCache<Key: Hashable & Sendable, Table: AnyObject & Sendable>: @unchecked Sendable {
    private struct Entry {
        weak var table: Table?
    }

    /// Guarded by `mutex`.
    private var entries: [Key: Entry] = [:]
    /// The keys of the last few lookups, newest first, checked with `==` before `entries` is
    /// hashed (guarded by `mutex`). A key holding large arrays (a model's weights) costs a hash
    /// over all of them, while `==` on a copy of the same value compares array storage
    /// identities: a thousand streams of one configuration then skip the hashing.
    private var recent: [(key: Key, entry: Entry)] = []
    /// How many keys `recent` keeps.
    private static var recentCapacity: Int { 4 }
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// An empty cache.
    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The tables for `key`: the ones already built and still held, else `build()`'s (called
    /// under the cache's lock, so two units asking at once build them once).
    public func table<E: Error>(for key: Key, build: () throws(E) -> Table) throws(E) -> Table {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let index = recent.firstIndex(where: { $0.key == key }) {
            if let table = recent[index].entry.table {
                if index > 0 { recent.insert(recent.remove(at: index), at: 0) }
                return table
            }
            recent.remove(at: index)
        }
        let table: Table
        if let held = entries[key]?.table {
            table = held
        } else {
            table = try build()
            if entries[key] == nil { entries = entries.filter { $0.value.table != nil } }
            entries[key] = Entry(table: table)
        }
        recent.insert((key, Entry(table: table)), at: 0)
        if recent.count > Self.recentCapacity { recent.removeLast() }
        return table
    }

    /// Whether some unit still holds the tables of `key` (for tests and diagnostics: unlike
    /// ``liveKeyCount``, units of other keys built or freed meanwhile on other threads do not
    /// change it).
    public func isLive(_ key: Key) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return entries[key]?.table != nil
    }

    /// Keys whose tables are still held by some unit (for tests and diagnostics).
    public var liveKeyCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return entries.values.reduce(0) { $0 + ($1.table == nil ? 0 : 1) }
    }
}
