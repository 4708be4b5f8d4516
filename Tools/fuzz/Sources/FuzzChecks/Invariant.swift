#if canImport(Glibc)
import Glibc
#endif

/// Fails the fuzz run with a message naming the broken invariant. `abort` rather than `fatalError`, so the message is
/// printed whole and libFuzzer saves the input as a crash like any other.
public func invariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard !condition() else { return }
    var text = "fuzz invariant broken: \(message())\n"
    // write(2) rather than stderr, which Swift 6 refuses as shared mutable state.
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    abort()
}

/// The point at which a target cuts its input into two chunks. Derived from the bytes (FNV-1a) so it is reproducible
/// from a saved crash input alone, and moves whenever libFuzzer mutates any byte.
public func splitPoint(_ bytes: [UInt8]) -> Int {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x0100_0000_01b3 }
    return Int(h % UInt64(bytes.count + 1))
}

/// The input as libFuzzer hands it over.
public func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The lines a line-oriented decoder sees: split at `\n`, a trailing `\r` dropped, a leading UTF-8 byte order mark
/// dropped (as `LineSplitter` does), blank lines (spaces, tabs, `\r`) left out. `keepingCarriageReturn`: the `\r`
/// kept, for lines to be given to a decoder alone (which drops it itself).
public func nonBlankLines(_ bytes: [UInt8], keepingCarriageReturn: Bool = false) -> [ArraySlice<UInt8>] {
    var out: [ArraySlice<UInt8>] = []
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    for line in body.split(separator: 10, omittingEmptySubsequences: false) {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
        out.append(line.last == 13 && !keepingCarriageReturn ? line.dropLast() : line)
    }
    return out
}

/// How often `word` occurs in `bytes` (overlapping occurrences count).
public func occurrences(of word: String, in bytes: [UInt8]) -> Int {
    let w = Array(word.utf8)
    guard !w.isEmpty, bytes.count >= w.count else { return 0 }
    var count = 0
    for k in 0...(bytes.count - w.count) where bytes[k] == w[0] && bytes[k..<(k + w.count)].elementsEqual(w) { count += 1 }
    return count
}
