#!/usr/bin/env python3
"""The peer for proximity (issue 50): shapely 2 doing the same pair search per step. For each step, an STRtree of
the roaming group's latest positions, queried with every device's position for members within the radius (planar
metres about the workload's centre, as exported by `geotrigger-bench proximity --export DIR`). No state, no
notifications: the search alone.

Usage: proximity_peer.py DIR    prints one tab-separated line.
"""
import json
import sys
import time

import numpy as np
import shapely


def main():
    d = sys.argv[1]
    meta = json.load(open(f"{d}/meta.json"))
    n, g, steps, radius = meta["devices"], meta["group"], meta["steps"], meta["radius"]
    xy = np.fromfile(f"{d}/positions.f64", dtype="<f8").reshape(steps, n, 2)
    pairs = 0
    t0 = time.perf_counter()
    for s in range(steps):
        points = shapely.points(xy[s])
        tree = shapely.STRtree(points[:g])
        found = tree.query(points, predicate="dwithin", distance=radius)
        # A device is not near itself.
        pairs += int(np.count_nonzero(found[0] != found[1]))
    seconds = time.perf_counter() - t0
    print("case\tpeer\tfixes\tfixes_per_s\tns_per_fix\tpairs")
    print(f"proximity\tshapely-strtree\t{n * steps}\t{n * steps / seconds:.0f}\t{seconds * 1e9 / (n * steps):.0f}\t{pairs}")


if __name__ == "__main__":
    main()
