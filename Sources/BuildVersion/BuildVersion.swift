/// The version `geotrigger --version` and `geotrigger serve --version` print: the package's version in a build made
/// by Tools/package.sh (`GEOTRIGGER_VERSION`), otherwise `VERSION`'s number with `-dev` and the commit, e.g.
/// `0.2.0-dev (d677bea1c2)`. Written before each build by Tools/build-version.sh (the BuildVersionPlugin).
public enum BuildVersion {
    public static let string: String = generated
}
