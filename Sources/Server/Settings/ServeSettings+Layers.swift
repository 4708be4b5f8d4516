import Configuration
import JSON

/// Reading the layers: flags, environment and the configuration file, each asked on its own.
extension ServeSettings {
    /// Resolves every setting.
    /// - Parameters:
    ///   - flags: by setting key, only the flags given.
    ///   - environment: the process environment (tests pass their own).
    ///   - configFile: `--config`; else `GEOTRIGGER_CONFIG` from `environment`.
    public static func resolve(flags: [String: FlagValue], environment: [String: String], configFile: String?) async throws(ServerConfigurationError) -> Resolved {
        var layers: [(name: String, provider: any ConfigProvider)] = []
        var values: [String: ConfigContent] = [:]
        for (key, value) in flags {
            switch value {
            case .string(let s): values[key] = .string(s)
            case .integer(let n): values[key] = .int(n)
            case .number(let d): values[key] = .double(d)
            case .strings(let list): values[key] = .stringArray(list)
            }
        }
        layers.append(("flag", InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: values.map {
            (AbsoluteConfigKey(ConfigKey($0.key)), ConfigValue($0.value, isSecret: false))
        }))))
        let secrets = Set(all.filter(\.isSecret).map(\.environmentVariable))
        layers.append(("environment", EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: .specific(secrets))
            .prefixKeys(with: "geotrigger")))
        if let path = configFile ?? environment[configFileVariable] {
            layers.append(("file \(path)", try await fileProvider(path)))
        }

        var resolved: [String: (value: ConfigContent, origin: String)] = [:]
        for setting in all {
            if let found = try lookUp(setting, in: layers) { resolved[setting.key] = found }
        }
        return try build(resolved)
    }

    /// The JSON file's provider, after checking that it names no unknown setting (a typo must not pass silently).
    static func fileProvider(_ path: String) async throws(ServerConfigurationError) -> any ConfigProvider {
        let bytes: [UInt8]
        do { bytes = try readFile(path) } catch { throw ServerConfigurationError(reason: "configuration file \(path): \(error)") }
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch {
            throw ServerConfigurationError(reason: "configuration file \(path) is not valid JSON: \(error)")
        }
        guard let object = json.objectValue else {
            throw ServerConfigurationError(reason: "configuration file \(path): expected a JSON object of settings, found \(json.kindName)")
        }
        try checkKeys(object, prefix: "", file: path)
        do {
            let reader = ConfigReader(provider: InMemoryProvider(values: ["filePath": ConfigValue(.string(path), isSecret: false)]))
            return try await FileProvider<JSONSnapshot>(config: reader)
        } catch {
            throw ServerConfigurationError(reason: "configuration file \(path): \(error)")
        }
    }

    private static func checkKeys(_ object: [(key: String, value: JSONValue)], prefix: String, file: String) throws(ServerConfigurationError) {
        let known = Set(all.map(\.key))
        for (key, value) in object {
            let path = prefix + key
            if known.contains(path) { continue }
            if let nested = value.objectValue, known.contains(where: { $0.hasPrefix(path + ".") }) {
                try checkKeys(nested, prefix: path + ".", file: file)
                continue
            }
            throw ServerConfigurationError(reason: "configuration file \(file): unknown setting '\(path)' (known: \(all.map(\.key).joined(separator: ", ")))")
        }
    }

    /// The first layer's value of `setting`; an error if that layer has one of the wrong type.
    static func lookUp(_ setting: ServeSetting, in layers: [(name: String, provider: any ConfigProvider)]) throws(ServerConfigurationError) -> (value: ConfigContent, origin: String)? {
        let type: ConfigType = switch setting.kind {
        case .string: .string
        case .integer: .int
        case .number: .double
        case .strings: .stringArray
        }
        for layer in layers {
            let origin = switch layer.name {
            case "flag": "flag --\(setting.flag ?? setting.key)"
            case "environment": "environment \(setting.environmentVariable)"
            default: "\(layer.name) key \(setting.key)"
            }
            let key = AbsoluteConfigKey(ConfigKey(setting.key))
            do {
                if let value = try layer.provider.value(forKey: key, type: type).value {
                    return (value.content, origin)
                }
            } catch {
                // A number setting written as an integer (`"retry.initial": 1` in the file) is still a number.
                if setting.kind == .number, let value = try? layer.provider.value(forKey: key, type: .int).value {
                    return (value.content, origin)
                }
                let expected = switch setting.kind {
                case .string: "a string"
                case .integer: "an integer"
                case .number: "a number"
                case .strings: "a list of strings"
                }
                throw ServerConfigurationError(reason: "\(origin): \(setting.key) must be \(expected) (\(error))")
            }
        }
        return nil
    }
}
