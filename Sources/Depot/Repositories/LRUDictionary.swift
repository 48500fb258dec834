/// A dictionary of at most `capacity` entries that drops the least recently used one to make room.
///
/// Every operation is O(1): a hash map from key to slot, and a doubly linked list threaded through
/// the slots by index (most recently used at `head`). Removal moves the last slot into the freed
/// one, so the storage stays dense and a removed value is released at once. Not thread-safe: its
/// owner guards it (``SnapshotCache`` with a lock).
struct LRUDictionary<Key: Hashable, Value> {
    fileprivate struct Node {
        var key: Key
        var value: Value
        var previous: Int
        var next: Int
    }

    private static var none: Int { -1 }

    /// The most entries kept.
    let capacity: Int
    private var nodes: [Node] = []
    private var slots: [Key: Int] = [:]
    private var head = LRUDictionary.none
    private var tail = LRUDictionary.none

    /// An empty dictionary keeping at most `capacity` (positive) entries.
    init(capacity: Int) {
        precondition(capacity > 0, "an LRU capacity must be positive, not \(capacity)")
        self.capacity = capacity
        nodes.reserveCapacity(Swift.min(capacity, 1_024))
    }

    /// The number of entries.
    var count: Int { nodes.count }

    /// The keys, most recently used first.
    var keys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(nodes.count)
        var slot = head
        while slot != Self.none {
            keys.append(nodes[slot].key)
            slot = nodes[slot].next
        }
        return keys
    }

    /// The value for `key`, which becomes the most recently used; nil when absent.
    mutating func value(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// The value for `key`, leaving the order of use as it is.
    func peek(_ key: Key) -> Value? {
        slots[key].map { nodes[$0].value }
    }

    /// Stores `value` for `key` as the most recently used entry, dropping the least recently used
    /// one when a new key would exceed the capacity.
    ///
    /// - Returns: the entry dropped to make room, if any.
    @discardableResult
    mutating func setValue(_ value: Value, for key: Key) -> (key: Key, value: Value)? {
        if let slot = slots[key] {
            nodes[slot].value = value
            moveToFront(slot)
            return nil
        }
        var evicted: (key: Key, value: Value)?
        if nodes.count >= capacity {
            let node = remove(slot: tail)
            evicted = (node.key, node.value)
        }
        nodes.append(Node(key: key, value: value, previous: Self.none, next: Self.none))
        let slot = nodes.count - 1
        slots[key] = slot
        pushFront(slot)
        return evicted
    }

    /// Removes the entry for `key`.
    ///
    /// - Returns: its value, or nil when there was none.
    @discardableResult
    mutating func removeValue(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        return remove(slot: slot).value
    }

    /// Removes every entry.
    mutating func removeAll() {
        nodes.removeAll(keepingCapacity: false)
        slots.removeAll()
        head = Self.none
        tail = Self.none
    }

    // MARK: The list

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        pushFront(slot)
    }

    private mutating func pushFront(_ slot: Int) {
        nodes[slot].previous = Self.none
        nodes[slot].next = head
        if head != Self.none { nodes[head].previous = slot } else { tail = slot }
        head = slot
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous != Self.none { nodes[previous].next = next } else { head = next }
        if next != Self.none { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = Self.none
        nodes[slot].next = Self.none
    }

    /// Unlinks and removes the node in `slot`, moving the last node into it.
    private mutating func remove(slot: Int) -> Node {
        unlink(slot)
        slots[nodes[slot].key] = nil
        let last = nodes.count - 1
        if slot != last {
            nodes.swapAt(slot, last)
            let moved = nodes[slot]
            if moved.previous != Self.none { nodes[moved.previous].next = slot } else { head = slot }
            if moved.next != Self.none { nodes[moved.next].previous = slot } else { tail = slot }
            slots[moved.key] = slot
        }
        return nodes.removeLast()
    }
}

extension LRUDictionary: Sendable where Key: Sendable, Value: Sendable {}
extension LRUDictionary.Node: Sendable where Key: Sendable, Value: Sendable {}
