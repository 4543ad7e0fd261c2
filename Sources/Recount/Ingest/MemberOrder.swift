/// The fields of an object's members in member order, as the last object of its kind had them.
///
/// A client writes its objects' members in one order, so the next object tries these first: a
/// member whose bytes are the expected name in quotes is taken without scanning or looking up
/// its key (`SampleFields.read`, `EnvelopeScan`'s root).
struct MemberOrder<Field: RawRepresentable> where Field.RawValue == Int {
    private var fields = InlineArray<16, Int8>(repeating: -1)

    init() {}

    /// The field at member `position`, if known.
    subscript(position: Int) -> Field? {
        get { position < 16 ? Field(rawValue: Int(fields[position])) : nil }
        set { if position < 16 { fields[position] = Int8(newValue?.rawValue ?? -1) } }
    }
}
