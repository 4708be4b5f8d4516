import Foundation
import Ingest
import EngineLog
import Journal
import TriggerEngine

/// A service's journal directory read as a trace: the fixes it accepted, in the order it accepted them, so `replay`
/// re-runs a production stream against edited regions (`geotrigger replay edited.json /var/lib/geotrigger.journal`).
/// Requests, removals, clock ticks and sightings in it are skipped: replay takes its regions from its own file and
/// its clock from the fixes. Damage inside the journal ends the source with the segment file and offset; a torn tail
/// ends it quietly, as at a restart.
struct JournalTraceSource: TraceSource {
    let directory: String
    private var reader: JournalReader
    let size: Int?
    var warnings: [IngestWarning] { [] }

    /// A directory that holds journal segment files.
    static func isJournal(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
            let names = try? FileManager.default.contentsOfDirectory(atPath: path)
        else { return false }
        return names.contains { $0.hasSuffix(".journal") && UInt64($0.dropLast(".journal".count)) != nil }
    }

    init(directory: String) throws(JournalError) {
        self.directory = directory
        reader = try JournalReader(directory: directory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        size = names.filter { $0.hasSuffix(".journal") }.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    mutating func readAll(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void,
                          shouldContinue: () -> Bool, progress: (Int) -> Void) throws {
        // Progress in bytes, from the records' own sizes (the framing adds a few bytes each).
        var bytes = 0, records = 0
        do {
            while shouldContinue(), let (position, record) = try reader.next() {
                let r = try HostRecord(record, position: position)
                if case .fixes(let fixes) = r.input { fixes.forEach(onRecord) }
                bytes += record.payload.count + 12
                records += 1
                if records % 256 == 0 { progress(bytes) }
            }
        } catch let e as JournalError {
            throw Failure(description: "\(directory): \(e)")
        } catch {
            throw Failure(description: "\(directory): journal record: \(error)")
        }
        progress(size ?? bytes)
    }
}
