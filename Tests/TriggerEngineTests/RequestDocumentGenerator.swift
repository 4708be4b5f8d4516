import TestSupport

/// Random request documents (SPEC §1 JSON) as text, valid and invalid, for comparing the byte decoder with the tree:
/// fields in any order and spacing, missing, extra, repeated or of the wrong type; strings with escapes and UTF-8;
/// numbers in every JSON form and some that are not JSON; nested userInfo; circle, polygon and beacon regions; and
/// now and then a whole-document fault (trailing text, a cut, a GeoJSON Feature).
struct RequestDocumentGenerator {
    var rng: SplitMix
    /// How often a field is spoiled (wrong type, out of range, unknown name): low enough that most documents are valid.
    var spoil: Double

    init(seed: UInt64, spoil: Double) {
        rng = SplitMix(seed: seed)
        self.spoil = spoil
    }

    /// A rare invalid choice, never in unspoiled documents.
    mutating func odd(_ p: Double) -> Bool { spoil > 0 && rng.chance(p) }

    mutating func space() -> String { rng.chance(0.15) ? rng.pick([" ", "\n  ", "\t", "\r\n", "  "]) : "" }

    /// A JSON object from members (already JSON text), shuffled, with random spacing.
    mutating func object(_ members: [(String, String)]) -> String {
        var m = members
        m.shuffle(using: &rng)
        if rng.chance(spoil / 4), let dup = m.first { m.append(dup) }  // a repeated name
        let body = m.map { "\(space())\"\($0.0)\"\(space()):\(space())\($0.1)\(space())" }.joined(separator: ",")
        return "{" + body + "}"
    }

    mutating func stringLiteral() -> String {
        let plain = ["zone", "Ünïcödé", "日本語", "a\\\"q", "tab\\tline\\n", "\\u00e9t\\u00E9", "\\ud83d\\ude00 smile",
                     "slash\\/", "{device} at {region.id}", "{event}", "x"]
        var s = rng.pick(plain)
        if rng.chance(spoil / 6) { s = rng.pick(["bad\\x", "\\ud800", "ctl\u{01}", "{nope}", "\\u12"]) }
        return "\"\(s)\""
    }

    /// A number in one of JSON's forms (and, when spoiled, a form JSON refuses).
    mutating func number(_ value: Double) -> String {
        if rng.chance(spoil / 6) { return rng.pick(["01", "1.", ".5", "+1", "1e400", "-", "1e", "NaN", "0x10"]) }
        let forms: [String]
        if value == value.rounded(), abs(value) < 1e6 {
            let i = Int(value)
            forms = ["\(i)", "\(i).0", "\(i)e0", "\(Double(i) / 10)e1", "\(i * 100)E-2", "\(i)e+0", "\(Double(i))"]
        } else {
            forms = ["\(value)", "\(value * 10)e-1", "\(value / 100)E2"]
        }
        // A form whose Double text has an exponent of its own cannot take another.
        return rng.pick(forms.filter { $0.lowercased().filter { $0 == "e" }.count <= 1 })
    }

    /// Something of another type than expected.
    mutating func wrong() -> String { rng.pick(["null", "true", "false", "\"s\"", "12", "[]", "{}", "[1,\"a\"]", "-0"]) }

    /// A field's value, or, at `spoil`'s rate, one of another type.
    mutating func field(_ good: String) -> String { rng.chance(spoil) ? wrong() : good }

    mutating func userInfo(depth: Int) -> String {
        var members: [(String, String)] = []
        for k in 0..<rng.int(0, 4) {
            let v: String
            switch rng.int(0, 5) {
            case 0: v = stringLiteral()
            case 1: v = number(rng.double(-1e3, 1e3))
            case 2: v = rng.pick(["true", "false", "null"])
            case 3 where depth < 3: v = userInfo(depth: depth + 1)
            case 4 where depth < 3: v = "[" + (0..<rng.int(0, 3)).map { _ in number(Double(rng.int(-5, 5))) }.joined(separator: ",") + "]"
            default: v = "\"k\(k)\""
            }
            members.append((rng.pick(["key\(k)", "k\\u0065y\(k)", "ключ\(k)", "event\(k)"]), v))
        }
        return object(members)
    }

    mutating func content() -> String {
        var m: [(String, String)] = []
        for name in ["title", "subtitle", "body", "sound", "categoryIdentifier", "threadIdentifier", "summaryArgument"]
        where rng.chance(0.4) {
            m.append((name, field(rng.chance(0.1) ? "null" : stringLiteral())))
        }
        if rng.chance(0.2) { m.append(("badge", field(number(Double(rng.int(0, 99)))))) }
        if rng.chance(0.3) { m.append(("userInfo", field(rng.chance(0.1) ? "null" : userInfo(depth: 0)))) }
        if rng.chance(spoil / 3) { m.append((rng.pick(["extra", "Title", "ti\\u0074le"]), "1")) }
        return object(m)
    }

    mutating func region() -> String {
        var m: [(String, String)] = [("id", field(odd(0.05) ? "\"\"" : "\"r\(rng.int(0, 999))\""))]
        if rng.chance(0.3) { m.append(("name", field(stringLiteral()))) }
        switch rng.int(0, 9) {
        case 0...6:
            m.append(("type", field("\"circle\"")))
            var center: [(String, String)] = [("latitude", field(number(odd(0.1) ? rng.double(-95, 95) : rng.double(-90, 90)))),
                                              ("longitude", field(number(odd(0.1) ? rng.double(-185, 185) : rng.double(-180, 180))))]
            if rng.chance(spoil) { center.removeLast() }
            m.append(("center", field(object(center))))
            m.append(("radius", field(number(odd(0.2) ? rng.double(-10, 6e6) : rng.chance(0.8) ? Double(rng.int(1, 500)) : rng.double(0.5, 5e6)))))
        case 7:
            m.append(("type", field("\"polygon\"")))
            let (x, y) = (rng.double(-10, 10), rng.double(-10, 10))
            let ring = !odd(0.1)
                ? "[[\(x),\(y)],[\(x + 0.1),\(y)],[\(x + 0.1),\(y + 0.1)],[\(x),\(y + 0.1)],[\(x),\(y)]]"
                : "[[0,0],[1,1],[1,0],[0,1],[0,0]]"
            m.append(("geometry", field("{\"type\":\"Polygon\",\"coordinates\":[\(ring)]}")))
        default:
            m.append(("type", field("\"beacon\"")))
            if rng.chance(0.6) {
                m.append(("uuid", field(!odd(0.1) ? "\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\"" : "\"nope\"")))
                let major = rng.chance(0.6)
                if major { m.append(("major", field(number(Double(rng.int(0, odd(0.2) ? 70000 : 65535)))))) }
                if major ? rng.chance(0.5) : odd(0.3) { m.append(("minor", field(number(Double(rng.int(0, 65535)))))) }
            } else {
                m.append(("namespace", field("\"EDD1EBEAC04E5DEFA017\"")))
                if rng.chance(0.5) { m.append(("instance", field("\"0123456789AB\""))) }
            }
            if rng.chance(0.3) { m.append(("proximity", field(odd(0.2) ? "\"unknown\"" : rng.pick(["\"near\"", "\"far\"", "\"immediate\""])))) }
        }
        if rng.chance(spoil / 2) { m.append((rng.pick(["radius", "geometry", "uuid", "weird"]), "1")) }
        return object(m)
    }

    mutating func trigger() -> String {
        let region = region()
        let beacon = region.contains("\"beacon\"")
        var m: [(String, String)] = [("region", field(region))]
        if rng.chance(0.2) { m.append(("type", field(odd(0.1) ? "\"time\"" : "\"location\""))) }
        var sawFalse = false
        for name in ["notifyOnEntry", "notifyOnExit"] where rng.chance(0.3) {
            // Both false is refused: unspoiled, the second is not false when the first was.
            let v = !sawFalse || odd(0.3) ? rng.pick(["true", "false", "null"]) : rng.pick(["true", "null"])
            sawFalse = sawFalse || v == "false"
            m.append((name, field(v)))
        }
        for name in ["repeats", "initialTrigger"] where rng.chance(0.3) {
            m.append((name, field(rng.pick(["true", "false", "null"]))))
        }
        for name in ["dwell", "hysteresis", "minimumInterval", "maximumAccuracy"] where rng.chance(0.2) {
            m.append((name, field(number(odd(0.2) ? rng.double(-5, 5) : rng.chance(0.8) ? Double(rng.int(1, 300)) : rng.double(0.1, 5)))))
        }
        if beacon ? rng.chance(0.3) : odd(0.05) {
            m.append(("exitTimeout", field(number(odd(0.2) ? rng.double(-5, 5) : Double(rng.int(1, 300))))))
        }
        if rng.chance(0.2) {
            let list = (0..<(odd(0.1) ? 0 : rng.int(1, 3))).map { _ in odd(0.1) ? "\"\"" : "\"d\(rng.int(0, 9))\"" }
            m.append(("devices", field(rng.chance(0.3) ? "\"*\"" : "[" + list.joined(separator: ",") + "]")))
        }
        return object(m)
    }

    mutating func request(_ k: Int) -> String {
        var m: [(String, String)] = []
        if !rng.chance(spoil / 3) { m.append(("identifier", field(rng.chance(0.1) ? stringLiteral() : "\"req-\(k)\""))) }
        if rng.chance(0.8) { m.append(("content", field(rng.chance(0.05) ? "null" : content()))) }
        if !rng.chance(spoil / 3) { m.append(("trigger", field(trigger()))) }
        if rng.chance(spoil / 3) { m.append(("extra", "{}")) }
        return rng.chance(spoil / 10) ? wrong() : object(m)
    }

    /// A whole document: usually an array of requests, sometimes one request or a whole-document fault.
    mutating func document() -> String {
        var text: String
        if rng.chance(0.1) {
            text = request(0)
        } else {
            text = "[" + (0..<rng.int(0, 6)).map { "\(space())\(request($0))" }.joined(separator: ",") + space() + "]"
        }
        if rng.chance(spoil / 5) {
            switch rng.int(0, 3) {
            case 0: text += " x"
            case 1: text = String(text.dropLast(rng.int(1, 5)))
            case 2: text = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[9.9,53.5]},\"properties\":{}}"
            default: text = "\u{FEFF}" + text
            }
        }
        return space() + text + space()
    }
}
