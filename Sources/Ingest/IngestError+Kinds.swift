import TriggerEngine

/// The stable `kind` strings of the line- and document-oriented decoders, so counters and tests never drift from the
/// code. Range and validity kinds come from `FixRejection.rawValue`, so they match what the engine counts.
extension IngestError {
    public enum Kind {
        /// The record is not well-formed JSON (the reason gives the byte offset within the line).
        public static let malformedJSON = "malformed-json"
        /// A JSON object names the same key twice (the field is its path): refused rather than read one way or another.
        public static let duplicateKey = "duplicate-key"
        /// Text that is not UTF-8: refused, never replaced (two different ids must not become one).
        public static let invalidUTF8 = "invalid-utf8"
        /// Two keys of one record are names of one field (`lat` and `latitude`, `FieldAliases`).
        public static let ambiguousField = "ambiguous-field"
        /// A device id longer than `FixFields.maximumDeviceBytes`.
        public static let deviceTooLong = "device-too-long"
        /// A CSV record breaks RFC 4180 quoting.
        public static let malformedCSV = "malformed-csv"
        /// A required field is absent or null.
        public static let missingField = "missing-field"
        /// The CSV header has no column for a required field.
        public static let missingColumn = "missing-column"
        /// A field has the wrong JSON type (e.g. latitude given as a string).
        public static let wrongType = "wrong-type"
        /// Text that should be a number is not one.
        public static let invalidNumber = "invalid-number"
        /// The record is valid JSON but not a message of the expected shape (e.g. an OwnTracks schema violation).
        public static let invalidMessage = "invalid-message"
        /// An OwnTracks message without `_type`.
        public static let missingType = "missing-type"
        /// Traccar marked the position invalid (no satellite fix).
        public static let invalidFix = "invalid-fix"
        /// A beacon identity (uuid, major/minor, namespace/instance) is missing or malformed.
        public static let invalidIdentity = "invalid-identity"
        /// An rssi, txPower or address is out of range or malformed.
        public static let invalidBeaconField = "invalid-beacon-field"
        /// A line or document longer than the decoder's limit; it is skipped, not buffered without bound.
        public static let recordTooLong = "record-too-long"
        /// A GPX document that is not well-formed XML (or not GPX).
        public static let malformedXML = "malformed-xml"
        /// A GPX point without <time>.
        public static let missingTime = "missing-time"
        /// An NMEA sentence whose `*hh` checksum does not match.
        public static let badChecksum = "bad-checksum"
        /// An NMEA position sentence with an unreadable field.
        public static let malformedSentence = "malformed-sentence"
        /// NMEA positions for which no RMC sentence ever gave the date.
        public static let missingDate = "missing-date"
        public static let invalidTimestamp = FixRejection.invalidTimestamp.rawValue
        public static let missingDevice = FixRejection.missingDevice.rawValue
        public static let latitudeOutOfRange = FixRejection.latitudeOutOfRange.rawValue
        public static let longitudeOutOfRange = FixRejection.longitudeOutOfRange.rawValue
        public static let notANumber = FixRejection.notANumber.rawValue
        public static let invalidAccuracy = FixRejection.negativeAccuracy.rawValue
    }
}
