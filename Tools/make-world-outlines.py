#!/usr/bin/env python3
"""Writes Sources/ReplayReport/world-outlines.json: the replay report's offline background (country and coast outlines).

Source: Natural Earth 1:110m Admin-0 countries (public domain), as the geopandas 0.14.4 wheel on PyPI ships it
(geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp). The shapefile is read by hand (polygon records
only), so nothing beyond the standard library is needed.

    pip download geopandas==0.14.4 --no-deps -d /tmp/ne
    Tools/make-world-outlines.py /tmp/ne/geopandas-0.14.4-py3-none-any.whl

Each ring is simplified (Douglas-Peucker, TOLERANCE degrees), rounded to 0.01 degree and written as integers: the
first vertex as hundredths of a degree [lon, lat], then the differences to the previous vertex. Rings that collapse
to fewer than 4 vertices are dropped. Run once; the output is committed and compiled into the binary.
"""
import io, json, os, struct, sys, zipfile

TOLERANCE = 0.08
SCALE = 100
MEMBER = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp"


def rings_of(shp):
    """Every ring of every polygon record (shape type 5) of an ESRI shapefile."""
    if struct.unpack(">i", shp[0:4])[0] != 9994:
        sys.exit("not a shapefile (file code is not 9994)")
    at = 100
    while at < len(shp):
        _, length = struct.unpack(">ii", shp[at:at + 8])
        body = shp[at + 8:at + 8 + 2 * length]
        at += 8 + 2 * length
        kind = struct.unpack("<i", body[0:4])[0]
        if kind == 0:
            continue
        if kind != 5:
            sys.exit(f"shape type {kind}: only polygons (5) are expected")
        parts, points = struct.unpack("<ii", body[36:44])
        starts = list(struct.unpack(f"<{parts}i", body[44:44 + 4 * parts])) + [points]
        xy = struct.unpack(f"<{2 * points}d", body[44 + 4 * parts:44 + 4 * parts + 16 * points])
        for a, b in zip(starts, starts[1:]):
            yield [(xy[2 * i], xy[2 * i + 1]) for i in range(a, b)]


def simplify(points, tolerance):
    """Douglas-Peucker, iterative; keeps the first and last point."""
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        a, b = stack.pop()
        (ax, ay), (bx, by) = points[a], points[b]
        dx, dy = bx - ax, by - ay
        norm = (dx * dx + dy * dy) ** 0.5
        worst, at = -1.0, -1
        for i in range(a + 1, b):
            px, py = points[i]
            d = abs(dy * (px - ax) - dx * (py - ay)) / norm if norm > 0 else ((px - ax) ** 2 + (py - ay) ** 2) ** 0.5
            if d > worst:
                worst, at = d, i
        if at >= 0 and worst > tolerance:
            keep[at] = True
            stack += [(a, at), (at, b)]
    return [p for p, k in zip(points, keep) if k]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with zipfile.ZipFile(sys.argv[1]) as z:
        shp = z.read(MEMBER)
    out, vertices = [], 0
    for ring in rings_of(shp):
        # A closed ring's first and last vertex are the same: split in two halves so both ends stay anchored.
        half = len(ring) // 2
        kept = simplify(ring[:half + 1], TOLERANCE)[:-1] + simplify(ring[half:], TOLERANCE)
        q = []
        for lon, lat in kept:
            p = (round(max(-180, min(180, lon)) * SCALE), round(max(-90, min(90, lat)) * SCALE))
            if not q or q[-1] != p:
                q.append(p)
        if len(q) < 4:
            continue
        vertices += len(q)
        flat = [q[0][0], q[0][1]]
        for (x0, y0), (x1, y1) in zip(q, q[1:]):
            flat += [x1 - x0, y1 - y0]
        out.append(flat)
    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "ReplayReport", "world-outlines.json")
    text = json.dumps({"source": "Natural Earth 1:110m Admin-0 countries (public domain), via geopandas 0.14.4 naturalearth_lowres",
                       "scale": SCALE, "rings": out}, separators=(",", ":"))
    with open(target, "w") as f:
        f.write(text + "\n")
    print(f"{len(out)} rings, {vertices} vertices, {len(text)} bytes -> {os.path.normpath(target)}")


if __name__ == "__main__":
    main()
