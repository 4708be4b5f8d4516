import CPrefetch
import Geometry

extension EngineCore {
    @discardableResult
    mutating func process(_ fix: LocationFix, emit: (FiredNotification) -> Void) -> TriggerEngine.Outcome {
        if index.wantsRebuild { index.rebuild() }
        return withUnsafePointer(to: fix) { process($0, hash: DeviceTable.hash(fix.device), guess: -1, cellKey: RegionIndex.unknownKey, emit: emit) }
    }

    /// `process(_:emit:)` with the device name's table hash already worked out, the record it was guessed at
    /// (-1: none; taken only when that record holds the name) and the fix's cell key at the index's one occupied
    /// level (or `RegionIndex.unknownKey`): `process(batch:)` works them out ahead.
    ///
    /// The fix is read where it lies, field by field: taken as a value from the batch it was copied whole for each
    /// fix, through its type's value witnesses (3 % of a sparse run's samples), though the mutating call could not
    /// change it.
    @inline(__always)
    mutating func process(_ fix: UnsafePointer<LocationFix>, hash: UInt32, guess: Int32, cellKey: UInt64,
                          emit: (FiredNotification) -> Void) -> TriggerEngine.Outcome {
        if let reason = LocationFix.invalidity(of: fix) { return refuse(fix, reason, device: nil) }
        let timestamp = fix.pointee.timestamp, latitude = fix.pointee.latitude, longitude = fix.pointee.longitude
        let horizontalAccuracy = fix.pointee.horizontalAccuracy
        // Before anything moves: a fix from too far ahead must not move the watermark or its device's timeline.
        if isFuture(timestamp, device: fix.pointee.device) { return refuse(fix, .future, device: nil) }
        // The clock moves first, so an idle sweep never frees the device record this fix is about to use.
        if configuration.clock == .eventTime, timestamp > now { advance(to: timestamp, emit: emit) }
        let d = deviceIndex(fix.pointee.device, hash: hash, guess: guess)
        let accuracy = horizontalAccuracy ?? 0
        if devices[Int(d)].hasFix {
            let last = devices[Int(d)].lastFixTime
            if timestamp < last { return refuse(fix, .late, device: d) }
            if timestamp == last,
                DeviceRecord.fingerprint(latitude: latitude, longitude: longitude, accuracy: accuracy)
                    == devices[Int(d)].lastFixFingerprint
            {
                return refuse(fix, .duplicate, device: d)
            }
        }
        statistics.fixesEvaluated += 1
        if explain.isOn { noteInput(device: d, kind: .fix, time: timestamp, a: latitude, b: longitude, accuracy: horizontalAccuracy, rejection: nil) }
        // Per-device time: this fix settles the device's own dwell deadlines up to its timestamp, first.
        settle(device: d, through: timestamp, kinds: .geofences, byClock: false, emit: emit)

        // 1. Candidates from the index, de-duplicated with a per-fix stamp.
        if index.cacheEpoch != cellCacheEpoch { resetCellCaches() }
        let currentStamp = nextStamp()
        // Most fixes of a sparse workload find nothing: the emptying is a call, skipped when there is nothing to empty.
        if !candidates.isEmpty { candidates.removeAll(keepingCapacity: true) }
        index.query(latitude: latitude, longitude: longitude, margin: accuracy, stamp: currentStamp,
                    stamps: &slotStamp, into: &candidates, cache: &devices[Int(d)].cellCache, knownKey: cellKey)
        statistics.candidateTests += candidates.count
        // Slot order, not the index's cell order (which depends on how the index was built: a batch of requests or
        // one at a time, before or after a restart): the order one fix fires in decides deliveryId ordinals.
        if candidates.count > 1 {
            candidates.sort()
            touchCandidates(latitude: latitude, longitude: longitude)
        }

        // What a notification of this fix reports as its evidence.
        let snapshot = FixSnapshot(timestamp: timestamp, latitude: latitude, longitude: longitude,
                                   horizontalAccuracy: horizontalAccuracy)

        // 2. Exact tests, only where the fix is within the fence's box.
        // The ECEF position costs four trig calls: computed only once a circle needs it.
        var ecef: Geodesy.ECEF?
        var k = 0
        while k < candidates.count {
            let slot = candidates[k]
            k += 1
            let g = slots[Int(slot)]
            if accuracy > g.maximumAccuracy { continue }
            if g.scoped, compiled[Int(slot)]?.request.trigger.applies(to: fix.pointee.device) != true { continue }
            let side = classify(slot: slot, g: g, latitude: latitude, longitude: longitude, ecef: &ecef,
                                margin: accuracy + g.hysteresis)
            transition(device: d, slot: slot, side: side, time: timestamp, evidence: .fix(snapshot), emit: emit)
        }

        // 3. Stored pairs the index did not return are clearly outside their fence.
        var p = 0
        while p < devices[Int(d)].pairs.count {
            // The two fields, not the pair: a copy of a pair copies its evidence.
            let slot = devices[Int(d)].pairs[p].slot, slotGeneration = devices[Int(d)].pairs[p].slotGeneration
            p += 1
            let s = Int(slot)
            guard slotGenerations[s] == slotGeneration else { continue }
            guard slotStamp[s] != currentStamp else { continue }
            let g = slots[s]
            guard g.kind == .circle || g.kind == .polygon else { continue }
            if accuracy > g.maximumAccuracy { continue }
            transition(device: d, slot: slot, side: .outside, time: timestamp, evidence: .fix(snapshot), emit: emit)
        }
        compactPairs(device: d, at: timestamp)

        // Only the wall clock waits for silence; event time never reads it (and the cold record is a cache miss).
        if configuration.clock == .external { observers[Int(d)].lastArrival = now }
        devices[Int(d)].lastFixTime = timestamp
        noteActivity(device: d, at: timestamp)
        devices[Int(d)].lastFixFingerprint = DeviceRecord.fingerprint(latitude: latitude, longitude: longitude, accuracy: accuracy)
        devices[Int(d)].lastGeneration = generation
        if configuration.keepsLastPosition {
            observers[Int(d)].lastLatitude = latitude
            observers[Int(d)].lastLongitude = longitude
            observers[Int(d)].lastAccuracy = horizontalAccuracy ?? .nan
        }
        if explain.isOn { explain.currentDevice = -1 }
        if proximity.isActive {
            enqueueProximity(device: fix.pointee.device, record: d, hash: hash, time: timestamp, latitude: latitude, longitude: longitude,
                             accuracy: horizontalAccuracy, emit: emit)
        }
        fireOverdue(emit: emit)
        return .evaluated
    }

    /// Evaluates fixes in order, as `process` one by one, while the device table's words and the device records
    /// of the fixes a few places ahead are prefetched: with many devices interleaved every fix's device is a cache
    /// miss, and one at a time the misses do not overlap. `outcome` gets each fix's index and outcome.
    mutating func process(batch fixes: UnsafeBufferPointer<LocationFix>, emit: (FiredNotification) -> Void,
                          outcome: (Int, TriggerEngine.Outcome) -> Void) {
        // Fields are read through the base pointer: `fixes[k].field` copied the whole fix first (its type's value
        // witness, a call per fix for each of the three look-aheads).
        guard let base = fixes.baseAddress else { return }
        // Before any cell key is worked out ahead: those hold only under the version they were worked out for.
        if index.wantsRebuild { index.rebuild() }
        let far = 8, near = 4
        // Every fix writes its device's observer record when the engine keeps positions or waits for silence.
        let touchesObserver = configuration.keepsLastPosition || configuration.clock == .external
        // Rings of 8 (indexed by fix & 7): the names' hashes from `far` ahead, so each is hashed once, and the
        // record each was guessed at from `near` ahead, so the table is probed once.
        var ring = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))
        var guessed = (Int32(-1), Int32(-1), Int32(-1), Int32(-1), Int32(-1), Int32(-1), Int32(-1), Int32(-1))
        // And the cell keys worked out two ahead (`RegionIndex.unknownKey` where none was), used only under the
        // index version they were worked out for: a fix can end a request (`repeats: false`), and a removal can
        // rebuild the index on another level.
        let u = RegionIndex.unknownKey
        var cellKeys = (u, u, u, u, u, u, u, u)
        var keysVersion = index.version
        withUnsafeMutableBytes(of: &ring) { raw in
            let hashes = raw.bindMemory(to: UInt32.self)
            for k in 0..<min(far, fixes.count) {
                hashes[k & 7] = DeviceTable.hash(base[k].device)
                deviceTable.prefetch(hash: hashes[k & 7])
            }
        }
        for k in fixes.indices {
            // Fix k's hash and guessed record, read before this round's look-ahead takes their ring places.
            let (hash, guess) = withUnsafeBytes(of: &ring) { raw in
                withUnsafeBytes(of: &guessed) { (raw.load(fromByteOffset: (k & 7) * 4, as: UInt32.self),
                                                $0.load(fromByteOffset: (k & 7) * 4, as: Int32.self)) }
            }
            var cellKey = withUnsafeBytes(of: &cellKeys) { $0.load(fromByteOffset: (k & 7) * 8, as: UInt64.self) }
            if index.version != keysVersion {
                cellKey = RegionIndex.unknownKey
                keysVersion = index.version
                cellKeys = (u, u, u, u, u, u, u, u)
            }
            withUnsafeMutableBytes(of: &ring) { raw in
                withUnsafeMutableBytes(of: &guessed) { rawGuesses in
                    let hashes = raw.bindMemory(to: UInt32.self), guesses = rawGuesses.bindMemory(to: Int32.self)
                    if k + near < fixes.count {
                        let d = deviceTable.guess(hash: hashes[(k + near) & 7]) ?? -1
                        guesses[(k + near) & 7] = d
                        devices.prefetch(Int(d))
                        if touchesObserver { prefetchObserver(Int(d)) }
                    }
                    // Two ahead the record has arrived: its cached cell says whether the query reads that cell's
                    // entries or probes the cell table first, and its pair list where the list's count and first
                    // pair lie (`settle` reads both first; under serve's load they were 77 % and 16 % of its samples).
                    var key = RegionIndex.unknownKey
                    if k + 2 < fixes.count, k + 2 >= near, case let d = Int(guesses[(k + 2) & 7]), d >= 0, d < devices.count {
                        key = index.prefetch(latitude: base[k + 2].latitude, longitude: base[k + 2].longitude, cache: devices[d].cellCache)
                        if explain.isOn, d < observers.count {
                            explain.prefetchNext(ring: observers[d].explainRing, written: observers[d].explainWritten)
                        }
                        // The list's storage object: its count at byte 16, the first pair's phase at 40.
                        devices.prefetchReferent(d, field: Self.pairsField, first: 16, last: 47)
                    }
                    withUnsafeMutableBytes(of: &cellKeys) { $0.storeBytes(of: key, toByteOffset: ((k + 2) & 7) * 8, as: UInt64.self) }
                    if k + far < fixes.count {
                        let h = DeviceTable.hash(base[k + far].device)
                        hashes[(k + far) & 7] = h
                        deviceTable.prefetch(hash: h)
                    }
                }
            }
            outcome(k, process(base + k, hash: hash, guess: k >= near ? guess : -1, cellKey: cellKey, emit: emit))
        }
    }

    /// Where a device record holds its pair list (a reference to the list's storage).
    static let pairsField = MemoryLayout<DeviceRecord>.offset(of: \DeviceRecord.pairs)!

    /// Starts loading observer `d`'s record (it spans two cache lines). `mutating` though it writes nothing: called
    /// from `process(batch:)`'s closures, a non-mutating method of the core was called on a copy of the whole core,
    /// every field retained and released, once per fix (a profile of `serve`, which keeps positions: BENCHMARKS §4.2).
    @inline(__always)
    mutating func prefetchObserver(_ d: Int) {
        guard d >= 0, d < observers.count else { return }
        observers.withUnsafeBufferPointer { o in
            let p = UnsafeRawPointer(o.baseAddress! + d)
            geotrigger_prefetch(p)
            geotrigger_prefetch(p + MemoryLayout<ObserverRecord>.size - 1)
        }
    }

    /// Loads each candidate's slot and, for a polygon, its grid, the fix's cell and that cell's first edge, in a
    /// loop of nothing else: with many regions these are cache misses, four in a row per candidate when taken one
    /// candidate at a time, and here the processor overlaps the candidates' misses with each other. A slot's
    /// geometry (112 bytes, at any offset from a cache line) spans two or three lines, and the exact test reads
    /// its first and last fields (kind; maximum accuracy and scope; the generation it was added at): all are loaded.
    @inline(__always)
    mutating func touchCandidates(latitude: Double, longitude: Double) {
        var sink: UInt8 = 0
        candidates.withUnsafeBufferPointer { candidates in
            slots.withUnsafeBufferPointer { slots in
                for slot in candidates {
                    sink &+= UInt8(truncatingIfNeeded: slots[Int(slot)].maximumAccuracy.bitPattern
                        ^ slots[Int(slot)].addedGeneration)
                }
                prefetchPlans(of: candidates)
                let grids = polygonGrids
                for slot in candidates where slots[Int(slot)].kind == .polygon {
                    sink &+= grids[Int(slot)].warm(latitude: latitude, longitude: longitude)
                }
            }
        }
        touched &+= sink
    }

    /// Starts loading the notification plan object of each candidate that has one. A firing retains its plan (the
    /// notification holds it): with many regions firing in turn that atomic increment was a cache miss that also
    /// held back every load after it, 9 % of a dense-circle run's samples. A prefetch costs one load of the plan
    /// array per candidate, whether it fires or not.
    @inline(__always)
    func prefetchPlans(of candidates: UnsafeBufferPointer<Int32>) {
        // An optional reference is one pointer, nil being zero: its bits are the object's address.
        plans.withUnsafeBytes { raw in
            for slot in candidates {
                if let object = raw.load(fromByteOffset: Int(slot) &* MemoryLayout<NotificationPlan?>.stride, as: UnsafeRawPointer?.self) {
                    geotrigger_prefetch(object)
                }
            }
        }
    }

    enum Side { case inside, outside, uncertain }

    /// SPEC §3: inside when d ≥ r + h, outside when d ≤ −(r + h), else uncertain; the boundary counts as inside.
    @inline(__always)
    func classify(slot: Int32, g: SlotGeometry, latitude: Double, longitude: Double, ecef: inout Geodesy.ECEF?, margin: Double) -> Side {
        switch g.kind {
        case .circle:
            let position: Geodesy.ECEF
            if let ecef { position = ecef } else {
                position = Geodesy.ECEF(Coordinate(latitude: latitude, longitude: longitude))
                ecef = position
            }
            let c2 = position.chordSquared(to: g.center)
            if margin == 0 { return c2 <= g.radiusChordSquared ? .inside : .outside }
            let distance = Geodesy.arc(chord: c2.squareRoot())
            if g.radius - distance >= margin { return .inside }
            if distance - g.radius >= margin { return .outside }
            return .uncertain
        case .polygon:
            let locator = polygonGrids[Int(slot)]
            let location = locator.locate(latitude: latitude, longitude: longitude)
            if margin == 0 { return location == .outside ? .outside : .inside }
            if location == .boundary || locator.hasBoundary(within: margin, latitude: latitude, longitude: longitude) {
                return .uncertain
            }
            return location == .inside ? .inside : .outside
        case .beacon, .proximity, .empty:
            return .outside
        }
    }

    mutating func reject(_ reason: FixRejection) -> TriggerEngine.Outcome {
        statistics.rejected[reason, default: 0] += 1
        return .rejected(reason)
    }

    /// A fresh visit stamp (wrap-around resets every slot's stamp, once per 4 billion fixes).
    @discardableResult
    mutating func nextStamp() -> UInt32 {
        stamp &+= 1
        if stamp == 0 { resetStamps() }
        return stamp
    }

    /// Every device's cell cache emptied: the grid's version tags wrapped around (`RegionIndex.CellCache`).
    mutating func resetCellCaches() {
        for d in devices.indices { devices[d].cellCache = RegionIndex.CellCache() }
        cellCacheEpoch = index.cacheEpoch
    }

    mutating func resetStamps() {
        for k in slotStamp.indices { slotStamp[k] = 0 }
        stamp = 1
    }

    func existingDevice(_ name: String) -> Int32? {
        deviceTable.find(name, hash: DeviceTable.hash(name), names: { devices[Int($0)].name == name })
    }

    /// The device's slot, created on first sight.
    mutating func deviceIndex(_ name: String, at time: Timestamp) -> Int32 {
        deviceIndex(name, hash: DeviceTable.hash(name), guess: -1)
    }

    /// `deviceIndex(_:at:)` for a name whose hash `h` is known, and the record `guess` it may be at: taken when
    /// that record holds the name (a freed record's name is empty, and no two live records share a name), which
    /// saves hashing the name again and probing the table.
    @inline(__always)
    mutating func deviceIndex(_ name: String, hash h: UInt32, guess: Int32) -> Int32 {
        if guess >= 0, Int(guess) < devices.count, !name.isEmpty, devices[Int(guess)].name == name { return guess }
        if let d = deviceTable.find(name, hash: h, names: { devices[Int($0)].name == name }) { return d }
        let d: Int32
        if let free = freeDevices.popLast() {
            d = free
            devices[Int(d)] = DeviceRecord(name: name)
            observers[Int(d)] = ObserverRecord()
        } else {
            d = Int32(devices.count)
            devices.append(DeviceRecord(name: name))
            observers.append(ObserverRecord())
        }
        if explain.wants(name) { observers[Int(d)].explainRing = explain.allocateRing() }
        deviceTable.insert(hash: h, index: d)
        return d
    }
}
