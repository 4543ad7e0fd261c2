/// A growable stack that hands out its top elements by moving them into a new array.
///
/// `JSONReader` collects each container's children here while parsing and moves them into an
/// exact-size `Array` at the closing bracket: one allocation per container, and no retain,
/// release or value-witness call per element (an `Array` slice copy costs all three).
struct JSONMoveStack<Element>: ~Copyable {
    /// The storage; elements `0..<count` are initialized.
    private var base: UnsafeMutablePointer<Element>
    /// The number of elements the storage holds.
    private var capacity: Int
    /// The number of elements on the stack.
    private(set) var count = 0

    /// Creates an empty stack.
    /// - Parameter capacity: the initial capacity, at least 1.
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        base = UnsafeMutablePointer<Element>.allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Pushes an element.
    /// - Parameter element: the element.
    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count &+= 1
    }

    /// The element at `position`, which must be below `count`.
    /// - Parameter position: an index from the bottom of the stack.
    subscript(position: Int) -> Element {
        base[position]
    }

    /// Removes the elements from `start` to the top and returns them, bottom first.
    /// - Parameter start: the index of the first element to take, at most `count`.
    /// - Returns: the elements, in push order.
    mutating func pop(from start: Int) -> [Element] {
        let taken = count &- start
        guard taken > 0 else { return [] }
        let source = base + start
        let elements = [Element](unsafeUninitializedCapacity: taken) { buffer, initialized in
            buffer.baseAddress?.moveInitialize(from: source, count: taken)
            initialized = taken
        }
        count = start
        return elements
    }

    /// Doubles the capacity, moving the elements.
    private mutating func grow() {
        let newCapacity = capacity &* 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
