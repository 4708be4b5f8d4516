#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SystemErrors

/// Whole input files (region files, golden files), with the system's reason when one cannot be read.
enum FileBytes {
    struct Failure: Error, CustomStringConvertible {
        /// The system's text, e.g. "No such file or directory".
        var description: String
    }

    static func read(_ path: String) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Failure(description: SystemError.text()) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { throw Failure(description: SystemError.text(EISDIR)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: SystemError.text())
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// Why an output file cannot be written, checked before the work that produces it starts (a typo in a folder
    /// must not cost a whole replay); nil when it can. The file itself is not created here.
    static func cannotWrite(_ path: String) -> String? {
        var st = stat()
        if stat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR { return SystemError.text(EISDIR) }
            return access(path, W_OK) == 0 ? nil : SystemError.text()
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let dir = folder.isEmpty ? "/" : folder
        guard access(dir, W_OK) == 0 else { return "cannot write into \(dir): \(SystemError.text())" }
        return nil
    }
}
