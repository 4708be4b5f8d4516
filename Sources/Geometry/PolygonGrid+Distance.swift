extension PolygonGrid {
    /// Metres from the point to the nearest real (non-seam) edge, on the ellipsoid's local scale at the point as
    /// `hasBoundary(within:)` measures; nil for a grid with no edge. For explanations, not the per-fix path: it
    /// measures every edge.
    public func distanceToBoundary(latitude y: Double, longitude x: Double) -> Double? {
        let scale = Geodesy.metresPerDegree(latitude: y)
        var best = Double.infinity
        let total = Int(cells[cellCount].start)
        for k in 0..<total {
            let edge = edge(at: offsets[k])
            if edge.isSeam { continue }
            let py = (edge.ay - y) * scale.latitude, qy = (edge.by - y) * scale.latitude
            let px = Self.wrap(edge.ax - x) * scale.longitude, qx = Self.wrap(edge.bx - x) * scale.longitude
            let dx = qx - px, dy = qy - py
            let len2 = dx * dx + dy * dy
            var t = len2 > 0 ? -(px * dx + py * dy) / len2 : 0
            t = min(1, max(0, t))
            let cx = px + t * dx, cy = py + t * dy
            best = min(best, cx * cx + cy * cy)
        }
        return best.isFinite ? best.squareRoot() : nil
    }
}
