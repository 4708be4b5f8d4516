import Ingest

extension IngestWarning {
    /// The warning as printed on standard error, with the option that addresses it.
    var commandLineText: String {
        var s = "warning: \(self)"
        switch kind {
        case Kind.devicePerRow: s += "; name the device column with --columns device=COLUMN"
        case Kind.waypointsSkipped: s += "; --waypoints reads them"
        case Kind.rowsNotRead: s += "; name the columns with --columns FIELD=COLUMN"
        default: break
        }
        return s + "\n"
    }
}
