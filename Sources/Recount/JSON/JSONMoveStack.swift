/// A growable stack that hands out its top elements by moving them into a new array.
///
/// `JSONReader` collects each container's children here while parsing and moves them into an
/// exact-size `Array` at the closing bracket: one allocation per container, and no retain,
/// release or value-witness call per element (an `Array` slice copy costs all three). Storage is
/// allocated on the first push, so parsing a scalar allocates nothing here.
struct JSONMoveStack<Element>: ~Copyable {
    /// The storage, once allocated; elements `0..<count` are initialized.
    private var base: UnsafeMutablePointer<Element>?
    /// The number of elements the storage holds.
    private var capacity = 0
    /// The number of elements on the stack.
    private(set) var count = 0

    /// Creates an empty stack without storage.
    init() {}

    deinit {
        guard let base else { return }
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Pushes an element.
    /// - Parameter element: the element.
    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base! + count).initialize(to: element)
        count &+= 1
    }

    /// The element at `position`, which must be below `count`.
    /// - Parameter position: an index from the bottom of the stack.
    subscript(position: Int) -> Element {
        base![position]
    }

    /// Removes the elements from `start` to the top and returns them, bottom first.
    /// - Parameter start: the index of the first element to take, at most `count`.
    /// - Returns: the elements, in push order.
    mutating func pop(from start: Int) -> [Element] {
        let taken = count &- start
        guard taken > 0, let base else { return [] }
        let source = base + start
        let elements = [Element](unsafeUninitializedCapacity: taken) { buffer, initialized in
            buffer.baseAddress?.moveInitialize(from: source, count: taken)
            initialized = taken
        }
        count = start
        return elements
    }

    /// The address of the element at `position` (below `count`), for moving elements out in
    /// place; follow with `forget(from:)`.
    /// - Parameter position: an index from the bottom of the stack.
    func address(of position: Int) -> UnsafeMutablePointer<Element> {
        base! + position
    }

    /// Lowers the count to `start` without deinitializing: the caller has moved those elements
    /// out through `address(of:)`.
    /// - Parameter start: the new count, at most `count`.
    mutating func forget(from start: Int) {
        if start < count { count = start }
    }

    /// Drops the elements from `start` to the top.
    /// - Parameter start: the new count, at most `count`.
    mutating func truncate(to start: Int) {
        guard start < count, let base else { return }
        (base + start).deinitialize(count: count &- start)
        count = start
    }

    /// Grows the storage (16 elements at first, then doubling), moving the elements.
    private mutating func grow() {
        let newCapacity = max(16, capacity &* 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let base {
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = newBase
        capacity = newCapacity
    }
}
