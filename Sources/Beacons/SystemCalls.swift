#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Small POSIX helpers shared by the file- and socket-owning types (BTSnoopReader/Writer, HCIScanner), so that their
// own `close()` methods do not shadow the C function.

/// `strerror` text with the number, e.g. "Address family not supported by protocol (errno 97)".
func errnoText(_ e: Int32) -> String {
    "\(String(cString: strerror(e))) (errno \(e))"
}

func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

/// The current errno, read right after the failing call.
var currentErrno: Int32 { errno }
