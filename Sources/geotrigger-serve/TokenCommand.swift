import ArgumentParser
import Foundation
import Logging
import Server
import Storage

/// `geotrigger token create|list|revoke`: the API's credentials in the database file, with or without a server
/// running on it. In this executable because it needs SQLite, which `geotrigger` does not carry (`TokenLauncher`).
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geotrigger token",
        abstract: "Creates, lists and revokes the API's credentials (scopes admin, ingest, read, device) in the database.",
        discussion: """
            A credential is a secret of the form gt_<id>_<random>, sent as a bearer token or as the password of \
            Basic credentials; the database keeps only a salted hash of it. Scopes: admin (everything), ingest (post \
            fixes and sightings for any device), read (queries and listings), device (post and read only as its own \
            --device ids; an OwnTracks device is user/device). The configured token (GEOTRIGGER_TOKEN, --token-file) \
            stays an admin credential. See docs/service.md, "Credentials and scopes".
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    /// Says why on standard error; exit status 1 (a usage error is 64, as everywhere in ArgumentParser).
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("geotrigger token: \(message)\n".utf8))
        return ExitCode(1)
    }

    struct DatabaseOption: ParsableArguments {
        @Option(help: "SQLite database file of the server (the one `serve --database` names).")
        var database = "./geotrigger.sqlite"

        /// The store; a file that does not exist is an error unless `create`.
        func open(create: Bool) throws -> SQLiteStore {
            if !create, !FileManager.default.fileExists(atPath: database) {
                throw TokenCommand.failure("no database at \(database); name the server's with --database")
            }
            do {
                return try SQLiteStore(path: database, logger: Logger(label: "geotrigger.token"))
            } catch {
                throw TokenCommand.failure("\(error)")
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates a credential and prints its secret on standard output: the only time it is shown.")

        @OptionGroup var options: DatabaseOption
        @Option(help: "What it may do: admin (everything), ingest (post for any device), read (queries), device (its own devices).")
        var scope: CredentialScope
        @Option(name: .customLong("device"), help: "A device it may post and read as (device scope; repeat for several).")
        var devices: [String] = []
        @Option(help: "A name to recognise it by in the listing.")
        var name = ""

        func run() throws {
            let store = try options.open(create: true)
            defer { try? store.close() }
            let created: Credentials.Created
            do {
                created = try Credentials(store: store, token: nil).create(name: name, scope: scope, devices: devices)
            } catch let e as Credentials.InvalidCredential {
                throw ValidationError(e.description)
            }
            print(created.secret)
            let c = created.credential
            let what = c.devices.isEmpty ? c.scope.rawValue : "\(c.scope.rawValue): \(c.devices.joined(separator: ", "))"
            FileHandle.standardError.write(Data("created credential \(c.id) (\(what)); its secret is shown only now\n".utf8))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists the credentials, revoked ones too; never a secret.")

        @OptionGroup var options: DatabaseOption

        func run() throws {
            let store = try options.open(create: false)
            defer { try? store.close() }
            let all = try Credentials(store: store, token: nil).list()
            print("ID            SCOPE   CREATED               REVOKED               NAME / DEVICES")
            for c in all {
                func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
                let created = String(c.createdAt.rfc3339.prefix(19)) + "Z"
                let revoked = c.revokedAt.map { String($0.rfc3339.prefix(19)) + "Z" } ?? "-"
                let devices = c.devices.isEmpty ? "" : " [\(c.devices.joined(separator: ", "))]"
                print("\(pad(c.id, 13)) \(pad(c.scope.rawValue, 7)) \(pad(created, 21)) \(pad(revoked, 21)) \(c.name)\(devices)")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revokes a credential: a server on the same file refuses it within 10 seconds (at once through DELETE /v1/tokens/ID).")

        @OptionGroup var options: DatabaseOption
        @Argument(help: "The credential's id (the listing's first column).") var id: String

        func run() throws {
            let store = try options.open(create: false)
            defer { try? store.close() }
            guard try Credentials(store: store, token: nil).revoke(id: id) else {
                throw TokenCommand.failure("no credential with id '\(id)' in \(options.database)")
            }
            FileHandle.standardError.write(Data("revoked credential \(id)\n".utf8))
        }
    }
}
