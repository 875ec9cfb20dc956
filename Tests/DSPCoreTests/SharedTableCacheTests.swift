import DSPCore
import Synchronization
import Testing

// SharedTableCache: one table per key while some unit holds it, built under the lock, freed
// with its last holder; the last few keys are found by `==` before the dictionary hashes.

/// Counts the hashes taken of the keys that share it.
private final class HashCount: Sendable {
    let value = Atomic<Int>(0)
}

/// A key whose `hash(into:)` is counted; equal when the ids are.
private struct CountedKey: Hashable, Sendable {
    var id: Int
    var count: HashCount

    static func == (a: CountedKey, b: CountedKey) -> Bool { a.id == b.id }
    func hash(into hasher: inout Hasher) {
        count.value.add(1, ordering: .relaxed)
        hasher.combine(id)
    }
}

private final class Table: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

@Suite("SharedTableCache")
struct SharedTableCacheTests {
    @Test("one build per key while held; equal keys get the same table; a freed table is built again")
    func sharesWhileHeld() {
        let cache = SharedTableCache<CountedKey, Table>()
        let count = HashCount()
        var builds = 0
        func lookup(_ id: Int) -> Table {
            cache.table(for: CountedKey(id: id, count: count)) { builds += 1; return Table(id: id) }
        }
        var held = (0..<10).map { lookup($0) }
        #expect(builds == 10)
        // More keys than the recent list keeps, in two orders: every one finds its own table.
        for id in (0..<10).reversed() + Array(0..<10) {
            let table = lookup(id)
            #expect(table === held[id] && table.id == id)
        }
        #expect(builds == 10 && cache.liveKeyCount == 10)
        // Freed with its last holder, also when the key is among the recent ones.
        let id = held[9].id
        held.removeLast()
        #expect(!cache.isLive(CountedKey(id: id, count: count)))
        let rebuilt = lookup(id)
        #expect(builds == 11 && rebuilt.id == id && cache.liveKeyCount == 10)
    }

    @Test("a key among the last four looked up is found without hashing it")
    func recentKeysSkipTheHash() {
        let cache = SharedTableCache<CountedKey, Table>()
        let count = HashCount()
        let tables = (0..<4).map { id in cache.table(for: CountedKey(id: id, count: count)) { Table(id: id) } }
        let hashesAfterBuilds = count.value.load(ordering: .relaxed)
        for round in 0..<100 {
            let id = round % 4
            #expect(cache.table(for: CountedKey(id: id, count: count)) { Table(id: -1) } === tables[id])
        }
        #expect(count.value.load(ordering: .relaxed) == hashesAfterBuilds)
        // A fifth key goes through the dictionary (hashed) and pushes the oldest out.
        let fifth = cache.table(for: CountedKey(id: 4, count: count)) { Table(id: 4) }
        #expect(count.value.load(ordering: .relaxed) > hashesAfterBuilds)
        #expect(cache.table(for: CountedKey(id: 4, count: count)) { Table(id: -1) } === fifth)
        withExtendedLifetime(tables) {}
    }
}
