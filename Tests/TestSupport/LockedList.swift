import Foundation

/// A list that threads append to under a lock: what tests running work on several threads
/// collect (mismatches, failures) to check once the threads are done.
public final class LockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []

    public init() {}

    /// Appends `item` (any thread).
    public func append(_ item: Element) { lock.withLock { items.append(item) } }

    /// What was appended so far.
    public var all: [Element] { lock.withLock { items } }
}
