#if canImport(Glibc)
import Glibc
#endif

/// Tracks decimated per zoom level by snapping to that zoom's pixel grid (Web Mercator, 256-pixel tiles): a point in
/// the same pixel as the previous kept point is dropped. The page draws the coarsest level whose pixels are at most
/// two of its own, so a track costs about as many points as the pixels it crosses, whatever the number of fixes.
struct TrackLevels {
    /// The zooms a level may be written for; the last level is always every point (`fullDetail`).
    static let candidateZooms = Array(2...17)
    static let fullDetail = 99
    /// A level is written only when it drops enough of the next finer one's points to be worth its bytes.
    static let worthwhile = 0.7

    /// The zooms written, coarsest first, ending with `fullDetail`.
    let zooms: [Int]
    /// Each track's points in Web Mercator, projected once for counting and for every level written.
    let projected: [[(Double, Double)]]

    init(tracks: [ReplayReport.Track]) {
        var counts = [Int](repeating: 0, count: Self.candidateZooms.count)
        var full = 0
        projected = tracks.map { Self.projected($0) }
        for points in projected {
            full += points.count
            for (k, zoom) in Self.candidateZooms.enumerated() { Self.forEachKept(points, zoom: zoom) { _ in counts[k] += 1 } }
        }
        var chosen = [Self.fullDetail]
        var finer = full
        for k in Self.candidateZooms.indices.reversed() where Double(counts[k]) <= Self.worthwhile * Double(finer) {
            chosen.insert(Self.candidateZooms[k], at: 0)
            finer = counts[k]
        }
        zooms = chosen
    }

    /// Web Mercator x and y in [0, 1] of a quantised position.
    @inline(__always)
    static func mercator(latitude: Int32, longitude: Int32) -> (Double, Double) {
        let lon = Double(longitude) / 100_000, lat = Double(latitude) / 100_000
        let s = min(0.9999, max(-0.9999, sin(lat * .pi / 180)))
        return ((lon + 180) / 360, 0.5 - log((1 + s) / (1 - s)) / (4 * .pi))
    }

    /// A track's points in Web Mercator, computed once for all the levels.
    static func projected(_ track: ReplayReport.Track) -> [(Double, Double)] {
        track.latitudes.indices.map { mercator(latitude: track.latitudes[$0], longitude: track.longitudes[$0]) }
    }

    /// Calls `body` with the index of every point of track `k` kept at `zoom` (all of them at `fullDetail`).
    func forEachKept(track k: Int, zoom: Int, _ body: (Int) -> Void) {
        if zoom == Self.fullDetail {
            for i in projected[k].indices { body(i) }
        } else {
            Self.forEachKept(projected[k], zoom: zoom, body)
        }
    }

    /// Calls `body` with the index of every point of a projected track kept at `zoom`; the first and last points
    /// are always kept, so a track's start and end stay where they are.
    static func forEachKept(_ points: [(Double, Double)], zoom: Int, _ body: (Int) -> Void) {
        let n = points.count
        guard n > 0 else { return }
        let cells = Double(256 << zoom)
        var previous = (Int.min, Int.min)
        for i in 0..<n {
            let (x, y) = points[i]
            let cell = (Int(x * cells), Int(y * cells))
            if cell != previous || i == n - 1 {
                body(i)
                previous = cell
            }
        }
    }
}
