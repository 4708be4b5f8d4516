/// Cuts a byte stream into top-level JSON values, so one decoder reads NDJSON, pretty-printed single documents and
/// concatenated documents alike (OwnTracks, Traccar). Stray text between values becomes a record of its own (to its end
/// of line) so the parser reports it. Not the hot path: bytes are copied into the current record.
struct JSONRecordSplitter {
    struct Record {
        /// Valid only during the callback.
        var bytes: UnsafeRawBufferPointer
        var line: Int
        var offset: Int
        var tooLong: Bool
    }

    private enum Mode { case between, value, stray }

    let maximumLength: Int
    private var buffer: [UInt8] = []
    private var overflowed = false
    private var mode = Mode.between
    private var openedWithBrace = false
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var atLineStart = true
    private var line = 1
    private var offset = 0
    private var recordLine = 1
    private var recordOffset = 0

    init(maximumLength: Int = 1 << 24) { self.maximumLength = maximumLength }

    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (Record) -> Void) {
        for c in chunk {
            step(c, body)
            offset += 1
        }
    }

    mutating func finish(_ body: (Record) -> Void) {
        if mode != .between { emit(body) }
    }

    private mutating func step(_ c: UInt8, _ body: (Record) -> Void) {
        let isNewline = c == 10
        defer {
            if isNewline { line += 1; atLineStart = true } else { atLineStart = false }
        }
        switch mode {
        case .between:
            if c == 32 || c == 9 || c == 10 || c == 13 { return }
            // A byte order mark at the very start is not content.
            if offset < 3, c == 0xEF || c == 0xBB || c == 0xBF { return }
            start(c)
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                mode = .value
                openedWithBrace = c == UInt8(ascii: "{")
                depth = 1
            } else {
                mode = .stray
            }
        case .stray:
            if isNewline { emit(body) } else { append(c) }
        case .value:
            // An object still open when a line starts with `{` is a truncated NDJSON line: report it and resynchronise,
            // instead of swallowing the rest of the file into one broken record.
            if atLineStart, c == UInt8(ascii: "{"), openedWithBrace {
                emit(body)
                start(c)
                mode = .value
                openedWithBrace = true
                depth = 1
                return
            }
            append(c)
            if inString {
                if escaped { escaped = false } else if c == 92 { escaped = true } else if c == 34 { inString = false }
                return
            }
            switch c {
            case 34: inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { emit(body) }
            default: break
            }
        }
    }

    private mutating func start(_ c: UInt8) {
        buffer.removeAll(keepingCapacity: true)
        overflowed = false
        inString = false
        escaped = false
        recordLine = line
        recordOffset = offset
        append(c)
    }

    private mutating func append(_ c: UInt8) {
        guard !overflowed else { return }
        if buffer.count >= maximumLength {
            overflowed = true
            buffer.removeAll(keepingCapacity: false)
            return
        }
        buffer.append(c)
    }

    private mutating func emit(_ body: (Record) -> Void) {
        mode = .between
        if overflowed {
            body(Record(bytes: UnsafeRawBufferPointer(start: nil, count: 0), line: recordLine, offset: recordOffset,
                        tooLong: true))
        } else {
            var record: [UInt8] = []
            swap(&record, &buffer)
            record.withUnsafeBytes {
                body(Record(bytes: $0, line: recordLine, offset: recordOffset, tooLong: false))
            }
            record.removeAll(keepingCapacity: true)
            swap(&record, &buffer)
        }
        overflowed = false
    }
}
