/// The records of a small CSV file (RFC 4180: commas, double-quoted fields with `""` for a
/// quote, CRLF or LF line ends), for the profile and summary files of Takeout exports.
enum CSVRecord {
    /// The records of a CSV text, each as its fields.
    static func records(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = iterator.next()
                    if next == "\"" {
                        field.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",":
                record.append(field)
                field = ""
            case "\r": continue
            case "\n":
                record.append(field)
                records.append(record)
                record = []
                field = ""
            default: field.unicodeScalars.append(scalar)
            }
        }
        if !field.isEmpty || !record.isEmpty {
            record.append(field)
            records.append(record)
        }
        return records
    }

    /// The data rows of a CSV text with a header, each as a dictionary by column name.
    static func rows(_ text: String) -> [[String: String]] {
        let records = records(text)
        guard let header = records.first else { return [] }
        return records.dropFirst().map { fields in
            var row: [String: String] = [:]
            for (name, value) in zip(header, fields) { row[name] = value }
            return row
        }
    }
}
