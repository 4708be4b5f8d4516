import Foundation
import Testing
import TestSupport

/// `geotrigger token create|list|revoke` against a real database file: the secret printed once, the listing without
/// it, revocation by id, and nothing but a salted hash in the file.
@Suite struct TokenCommandTests {
    let database: String

    init() throws {
        database = try TestFolders.make("token-cli").appendingPathComponent("geotrigger.sqlite").path
    }

    @Test func createListRevoke() throws {
        let created = try BuiltBinary.output(["token", "create", "--database", database, "--scope", "device",
                                              "--device", "jane/phone", "--name", "Jane's phone"])
        #expect(created.status == 0)
        let secret = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The random part may itself hold `_` (base64url): the id before it has a fixed length.
        let parts = secret.split(separator: "_", maxSplits: 2)
        #expect(parts.count == 3 && parts[0] == "gt" && parts[1].count == 12 && parts[2].count == 43, "\(secret)")
        let id = String(parts[1])

        let listed = try BuiltBinary.output(["token", "list", "--database", database])
        #expect(listed.status == 0)
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.hasPrefix(id) }, "\(listed.stdout)")
        #expect(row.contains("device") && row.contains("Jane's phone") && row.contains("jane/phone"))
        #expect(row.hasSuffix("[jane/phone]"))
        #expect(!listed.stdout.contains(String(parts[2])))

        var bytes = Data()
        for suffix in ["", "-wal"] { bytes += (try? Data(contentsOf: URL(fileURLWithPath: database + suffix))) ?? Data() }
        #expect(bytes.count > 0 && bytes.range(of: Data(parts[2].utf8)) == nil)

        #expect(try BuiltBinary.output(["token", "revoke", "--database", database, id]).status == 0)
        let after = try BuiltBinary.output(["token", "list", "--database", database]).stdout
        let revoked = try #require(after.split(separator: "\n").first { $0.hasPrefix(id) })
        #expect(revoked.split(separator: " ", omittingEmptySubsequences: true)[3].hasSuffix("Z"), "\(revoked)")
    }

    @Test func refusalsSayWhy() throws {
        let unknown = try BuiltBinary.run(["token", "revoke", "--database", database, "abc"], reading: .error)
        #expect(unknown.status == 1 && unknown.text.contains("no database"), "\(unknown.text)")
        #expect(try BuiltBinary.output(["token", "create", "--database", database, "--scope", "admin"]).status == 0)
        let missing = try BuiltBinary.run(["token", "revoke", "--database", database, "abc"], reading: .error)
        #expect(missing.status == 1 && missing.text.contains("no credential with id 'abc'"), "\(missing.text)")
        let noDevice = try BuiltBinary.run(["token", "create", "--database", database, "--scope", "device"], reading: .error)
        #expect(noDevice.status == 64 && noDevice.text.contains("at least one device"), "\(noDevice.text)")
        let badScope = try BuiltBinary.run(["token", "create", "--database", database, "--scope", "root"], reading: .error)
        #expect(badScope.status == 64, "\(badScope.text)")
        let help = try BuiltBinary.output(["token", "--help"])
        #expect(help.status == 0 && help.stdout.contains("create") && help.stdout.contains("revoke"))
    }
}
