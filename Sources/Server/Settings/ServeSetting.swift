/// One setting of `geotrigger serve`, as the command line, the environment and the configuration file name it.
/// `ServeSettings.all` lists them; `--help`, the resolution and the docs all come from that one list, so a new
/// setting is one more entry there (and one more line where `ServeSettings.resolve` builds the configuration).
public struct ServeSetting: Sendable {
    public enum Kind: Sendable, Equatable {
        case string
        case integer
        /// A decimal number (seconds).
        case number
        /// Repeatable flag; comma-separated in the environment; an array of strings in the file.
        case strings
    }

    /// Dotted key: nested objects in the configuration file (`tls.certificate` is `{"tls": {"certificate": …}}`).
    public let key: String
    /// The long flag without dashes; nil for a setting the command line must not carry (a secret).
    public let flag: String?
    public let kind: Kind
    /// The default as shown to people; nil when unset by default.
    public let defaultValue: String?
    public let help: String
    public let isSecret: Bool

    init(_ key: String, flag: String?, _ kind: Kind, default defaultValue: String?, secret: Bool = false, help: String) {
        self.key = key
        self.flag = flag
        self.kind = kind
        self.defaultValue = defaultValue
        self.help = help
        self.isSecret = secret
    }

    /// `GEOTRIGGER_` and the key in swift-configuration's environment spelling: `maxBodyBytes` →
    /// `GEOTRIGGER_MAX_BODY_BYTES`, `tls.certificate` → `GEOTRIGGER_TLS_CERTIFICATE`.
    public var environmentVariable: String {
        var out = "GEOTRIGGER"
        for component in key.split(separator: ".") {
            out += "_"
            var previousLower = false
            for c in component {
                if c.isUppercase, previousLower { out += "_" }
                out += c.isLetter || c.isNumber ? c.uppercased() : "_"
                previousLower = c.isLowercase || c.isNumber
            }
        }
        return out
    }

    /// The flag's help: what it does, where else it can be set, its default.
    public var flagHelp: String {
        "\(help) (env \(environmentVariable), file key \(key); default: \(defaultValue ?? "none"))"
    }
}
