/// Column mappings as users write them (`--columns`, and later an HTTP parameter): `field=Column` pairs separated by
/// commas, e.g. `device=Vehicle,timestamp=GPS Time`. A column name may be double-quoted to hold commas or surrounding
/// spaces (`""` is a quote inside); unquoted names are trimmed. Fields are named as in `CSVField.mappingKeys`
/// (`FieldAliases`), compared as header names are.
extension CSVColumns: CustomStringConvertible {
    public struct MappingError: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    public init(mapping: String) throws(MappingError) {
        self.init()
        var seen: Set<CSVField> = []
        for item in try Self.items(mapping) {
            guard let eq = item.firstIndex(of: "=") else {
                throw MappingError(reason: "\"\(item)\" is not field=column")
            }
            let key = item[..<eq].trimmingSpaces
            guard let field = CSVField.allCases.first(where: { f in f.mappingKeys.contains { CSVField.normalised($0) == CSVField.normalised(key) } })
            else {
                let keys = CSVField.allCases.map(\.rawValue).joined(separator: ", ")
                throw MappingError(reason: "unknown field \"\(key)\"; fields are \(keys)")
            }
            guard seen.insert(field).inserted else { throw MappingError(reason: "\(field.rawValue) is mapped twice") }
            let column = try Self.column(item[item.index(after: eq)...])
            guard !column.isEmpty else { throw MappingError(reason: "no column name for \(field.rawValue)") }
            self[field] = column
        }
        guard !seen.isEmpty else { throw MappingError(reason: "an empty mapping; write field=column, e.g. device=Vehicle") }
    }

    /// The mapping in the form `init(mapping:)` reads, fields in `CSVField` order; empty for `.automatic`.
    public var description: String {
        CSVField.allCases.compactMap { field in
            self[field].map { column -> String in
                let plain = !column.contains(where: { $0 == "," || $0 == "\"" || $0 == "=" }) && column == column.trimmingSpaces
                return field.rawValue + "=" + (plain ? column : "\"" + column.replacingQuotes + "\"")
            }
        }.joined(separator: ",")
    }

    /// Splits at commas outside double quotes.
    private static func items(_ text: String) throws(MappingError) -> [Substring] {
        var items: [Substring] = []
        var start = text.startIndex, i = text.startIndex, quoted = false
        while i < text.endIndex {
            if text[i] == "\"" { quoted.toggle() }
            if text[i] == ",", !quoted {
                items.append(text[start..<i])
                start = text.index(after: i)
            }
            i = text.index(after: i)
        }
        if quoted { throw MappingError(reason: "an unterminated quote in \"\(text)\"") }
        items.append(text[start...])
        return items.filter { !$0.trimmingSpaces.isEmpty }
    }

    private static func column(_ raw: Substring) throws(MappingError) -> String {
        let value = raw.trimmingSpaces
        guard value.first == "\"" else { return String(value) }
        var out = "", i = value.index(after: value.startIndex)
        while i < value.endIndex {
            let c = value[i]
            i = value.index(after: i)
            if c != "\"" { out.append(c); continue }
            if i < value.endIndex, value[i] == "\"" { out.append("\""); i = value.index(after: i); continue }
            guard i == value.endIndex else { throw MappingError(reason: "text after the closing quote in \(value)") }
            return out
        }
        throw MappingError(reason: "an unterminated quote in \(value)")
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }

    fileprivate var replacingQuotes: String { String(self).split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") }
}
