import CPrefetch
import HeapModule

/// Device retention gives memory back: freed records are reused by new devices, but after a large population has
/// gone (a million test ids, a fleet renamed) most of the record arrays and the name table would stay allocated for
/// good. Once most records are free, the live ones move to arrays sized for them.
extension EngineCore {
    /// Records below which compaction is not worth a pass over every device.
    static let compactionMinimum = 4096

    mutating func compactDevicesIfSparse() {
        guard devices.count >= Self.compactionMinimum, freeDevices.count * 2 > devices.count else { return }
        let live = devices.count - freeDevices.count
        var moved = [Int32](repeating: -1, count: devices.count)
        let records = CacheAlignedArray<DeviceRecord>(capacity: max(64, live))
        var colder: [ObserverRecord] = []
        colder.reserveCapacity(live)
        var table = DeviceTable()
        table.reserve(live)
        for d in devices.indices where !devices[d].name.isEmpty {
            let k = Int32(records.count)
            moved[d] = k
            records.append(devices[d])
            colder.append(observers[d])
            table.insert(hash: DeviceTable.hash(devices[d].name), index: k)
        }
        devices = records
        observers = colder
        deviceTable = table
        freeDevices = []
        var deadlines = Heap<TimerEntry>()
        for t in timers.unordered where Int(t.device) < moved.count && moved[Int(t.device)] >= 0 {
            var u = t
            u.device = moved[Int(t.device)]
            deadlines.insert(u)
        }
        timers = deadlines
        for s in occupantCandidates.indices where !occupantCandidates[s].isEmpty {
            occupantCandidates[s] = occupantCandidates[s].compactMap { d in
                Int(d) < moved.count && moved[Int(d)] >= 0 ? moved[Int(d)] : nil
            }
        }
        recomputeWatermark()
        statistics.deviceCompactions += 1
        // The old arrays went back to malloc, which keeps freed heap pages for reuse: hand them to the kernel.
        geotrigger_release_free_memory()
    }
}
