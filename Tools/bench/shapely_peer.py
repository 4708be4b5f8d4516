#!/usr/bin/env python3
"""The peer a data engineer would reach for: shapely 2 (GEOS STRtree, vectorised), answering only
"which regions contain this point" for the workload geotrigger-bench exported (same regions, same fixes).

Usage: shapely_peer.py CASE_DIR [CASE_DIR...]   prints one tab-separated line per case.
"""
import struct
import sys
import time

import numpy as np
import shapely


def load(case_dir):
    with open(f"{case_dir}/regions.bin", "rb") as f:
        data = f.read()
    (count,) = struct.unpack_from("<I", data, 0)
    off = 4
    rings = []
    for _ in range(count):
        (n,) = struct.unpack_from("<I", data, off)
        off += 4
        coords = np.frombuffer(data, dtype="<f8", count=2 * n, offset=off).reshape(n, 2)
        off += 16 * n
        rings.append(coords)
    polygons = shapely.polygons([shapely.linearrings(r) for r in rings])
    with open(f"{case_dir}/fixes.bin", "rb") as f:
        data = f.read()
    (n,) = struct.unpack_from("<I", data, 0)
    lon = np.frombuffer(data, dtype="<f8", count=n, offset=4)
    lat = np.frombuffer(data, dtype="<f8", count=n, offset=4 + 8 * n)
    return polygons, lon, lat


def main():
    print("case\tpeer\tfixes\tfixes_per_s\tns_per_fix\tmatches\tbuild_s")
    for case_dir in sys.argv[1:]:
        polygons, lon, lat = load(case_dir)
        t0 = time.perf_counter()
        tree = shapely.STRtree(polygons)
        points = shapely.points(lon, lat)
        # Force the tree build outside the timed query (shapely builds lazily on first query).
        tree.query(points[:1], predicate="intersects")
        build = time.perf_counter() - t0
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            result = tree.query(points, predicate="intersects")  # covers: boundary counts as inside
            elapsed = time.perf_counter() - t0
            best = elapsed if best is None else min(best, elapsed)
        n = len(points)
        name = case_dir.rstrip("/").split("/")[-1]
        print(f"{name}\tshapely-{shapely.__version__}-geos-{shapely.geos_version_string}\t{n}\t{n / best:.0f}\t{best * 1e9 / n:.0f}\t{result.shape[1]}\t{build:.2f}")


if __name__ == "__main__":
    main()
