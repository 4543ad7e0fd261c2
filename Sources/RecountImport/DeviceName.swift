/// Normalisation of the `device` attribute of Apple Health records.
///
/// Apple writes the `description` of an `HKDevice`, including its memory address, which differs on
/// every record for one and the same device:
/// `<<HKDevice: 0x282a45810>, name:Apple Watch, manufacturer:Apple Inc., model:Watch,
/// hardware:Watch2,4, software:4.3.1>`. Newer exports add `creation date:…`, AirPods add
/// `localIdentifier:…`. The normalised device is the name followed by the hardware model in
/// parentheses, `Apple Watch (Watch2,4)`; the name alone, or the hardware / model alone, when only
/// that is known. Software versions, manufacturer and identifiers are dropped, so one watch stays
/// one device across OS updates. A string that is not an `HKDevice` description is kept, with
/// white space normalised like source names.
enum DeviceName {
    /// The normalised device of a `device` attribute.
    ///
    /// - Parameter raw: the attribute value.
    /// - Returns: the normalised device, or `nil` when nothing usable remains.
    static func normalize(_ raw: String) -> String? {
        let trimmed = SourceName.normalize(raw)
        guard !trimmed.isEmpty else { return nil }
        guard trimmed.hasPrefix("<<HKDevice") else { return trimmed }
        // Drop the outer "<" … ">" and the "<HKDevice: 0x…>" head.
        var body = trimmed.dropFirst()
        if body.hasSuffix(">") { body = body.dropLast() }
        guard let headEnd = body.firstIndex(of: ">") else { return nil }
        body = body[body.index(after: headEnd)...]
        let fields = Self.fields(of: body)
        let name = fields["name"].map { SourceName.normalize(String($0)) } ?? ""
        let hardware =
            (fields["hardware"] ?? fields["model"]).map { SourceName.normalize(String($0)) } ?? ""
        switch (name.isEmpty, hardware.isEmpty) {
        case (false, false): return "\(name) (\(hardware))"
        case (false, true): return name
        case (true, false): return hardware
        case (true, true): return nil
        }
    }

    /// The bytes of an `HKDevice` description without its memory address: equal for every record
    /// of one device, so a good cache key for `normalize`.
    ///
    /// - Parameter raw: the attribute value's bytes.
    /// - Returns: the bytes from the `>` closing `<HKDevice: 0x…>` on, or `nil` when `raw` is no
    ///   `HKDevice` description (it starts with `<<HKDevice` and an ASCII byte, and has a `>`).
    static func addressFreeKey(_ raw: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let prefix: StaticString = "<<HKDevice"
        let length = prefix.utf8CodeUnitCount
        // A byte above 0x7F could combine with the prefix's last letter, which `String`'s
        // `hasPrefix` (in `normalize`) would then not see as the prefix.
        guard raw.count > length, raw[length] < 0x80,
            XMLStartTag.equal(UnsafeBufferPointer(rebasing: raw[..<length]), prefix),
            let close = raw.firstIndex(of: UInt8(ascii: ">"))
        else { return nil }
        return UnsafeBufferPointer(rebasing: raw[close...])
    }

    /// Splits `, key:value, key:value` into fields.
    ///
    /// Values may themselves contain `, ` (`name:Polar H10, 12345`): a piece that does not start
    /// with `key:` (letters, digits and spaces, then a colon) continues the previous value. The first
    /// occurrence of a key wins.
    private static func fields(of body: Substring) -> [String: Substring] {
        var result: [String: Substring] = [:]
        var lastKey: String?
        for piece in body.split(separator: ", ", omittingEmptySubsequences: true) {
            let piece = piece.drop { $0 == "," || $0 == " " }
            if let colon = piece.firstIndex(of: ":"),
                case let key = piece[..<colon], !key.isEmpty,
                key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " })
            {
                let keyString = String(key)
                if result[keyString] == nil {
                    result[keyString] = piece[piece.index(after: colon)...]
                    lastKey = keyString
                } else {
                    lastKey = nil
                }
            } else if let key = lastKey, let value = result[key] {
                result[key] = Substring(String(value) + ", " + String(piece))
            }
        }
        return result
    }
}
