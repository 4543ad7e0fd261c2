#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An array of plain values that grows in place: `realloc` extends a large block by remapping
/// its pages, where `Array` allocates a buffer twice the size and copies every element into it
/// each time it fills. The id index's arrays hold hundreds of megabytes; growing them as
/// `Array`s was a fifth of a replay's fold (the copies and the page faults of each new buffer).
///
/// A value type with copy-on-write, as `Array` is: a copy shares the block until either side
/// changes it.
package struct GrowableArray<Element: BitwiseCopyable>: RandomAccessCollection, Sendable {
    private final class Block: @unchecked Sendable {
        // Unchecked: the block is only written through a uniquely referenced `GrowableArray`.
        var base: UnsafeMutablePointer<Element>?
        var count = 0
        var capacity = 0

        init() {}

        func copy() -> Block {
            let copy = Block()
            copy.reserve(count)
            if count > 0 { copy.base!.update(from: base!, count: count) }
            copy.count = count
            return copy
        }

        func reserve(_ wanted: Int) {
            guard wanted > capacity else { return }
            let bytes = wanted * MemoryLayout<Element>.stride
            guard let grown = realloc(base, bytes) else { fatalError("out of memory growing to \(bytes) bytes") }
            base = grown.assumingMemoryBound(to: Element.self)
            capacity = wanted
        }

        deinit { free(base) }
    }

    private var block = Block()

    package init() {}

    package var startIndex: Int { 0 }
    package var endIndex: Int { block.count }

    package subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < block.count, "index out of range")
            return block.base![index]
        }
        set {
            precondition(index >= 0 && index < block.count, "index out of range")
            makeUnique()
            block.base![index] = newValue
        }
    }

    /// Adds `element` at the end, doubling the capacity when full.
    package mutating func append(_ element: Element) {
        makeUnique()
        if block.count == block.capacity { block.reserve(Swift.max(16, 2 * block.capacity)) }
        (block.base! + block.count).initialize(to: element)
        block.count += 1
    }

    /// Makes room for `capacity` elements in all.
    package mutating func reserveCapacity(_ capacity: Int) {
        makeUnique()
        block.reserve(capacity)
    }

    /// Removes every element, keeping the capacity.
    package mutating func removeAll() {
        makeUnique()
        block.count = 0
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&block) { block = block.copy() }
    }
}
