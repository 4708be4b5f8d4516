import JSON
import Testing
@testable import TriggerEngine

/// Equality of JSON values, which request equality (`userInfo`) rests on.
@Suite struct JSONValueTests {
    /// Found by Tools/fuzz FuzzRequestJSON (a request body with a repeated member name): such an object was unequal
    /// to itself, because each member was compared with the other side's last member of that name. Built directly,
    /// not parsed, so the test holds whether or not the parser accepts repeated names.
    @Test func objectWithARepeatedNameEqualsItself() {
        let v = JSONValue.object([("a", 1), ("b", true), ("a", 2)])
        #expect(v == v)
        #expect(v == .object([("b", true), ("a", 1), ("a", 2)]))
        #expect(v != .object([("a", 2), ("b", true), ("a", 1)]))
        #expect(v != .object([("a", 2), ("b", true)]))
        #expect(Set([v, v]).count == 1)
    }

    @Test func memberOrderDoesNotMatter() throws {
        #expect(try JSONParser.parse(#"{"x":[1,{"y":null}],"z":"s"}"#) == JSONParser.parse(#"{"z":"s","x":[1,{"y":null}]}"#))
        #expect(try JSONParser.parse(#"{"x":1}"#) != JSONParser.parse(#"{"x":1,"y":1}"#))
    }
}
