#!/usr/bin/env python3
"""A notification-dense replay against shapely (issue 13): circles where the fixes go most, so many fixes fire.

The workload: vehicles travelling between places clustered around a dozen towns (each vehicle keeps to one town:
it picks one of the town's places, drives to it at 20-80 m per fix, waits 1-5 fixes, picks another), every vehicle reporting once per tick, with 10 m of GPS
noise. Then the circles (radius 120 m) go on the 100 m cells the most fixes fall in: the places and the roads into
them, as a user placing geofences on the busiest spots would. Both sides get the same points and circles:

1. `geotrigger replay REGIONS TRACE --output FILE`, timed from process start to exit (reading the circle requests and
   the NDJSON trace, evaluating, rendering and writing every notification to a file).
2. shapely 2 (`shapely_peer.py`, STRtree of the circles as 64-gons, `query(points, predicate="intersects")`, best of
   3, tree build excluded): which circles contain each point, nothing more.

Prints both rates, the ratio, and how many notifications fired per fix.

Usage: notify_dense.py [--bin .build/release/geotrigger] [--vehicles 10000] [--ticks 100] [--circles 10000]
"""
import argparse, json, math, os, re, struct, subprocess, sys, tempfile, time

import numpy as np

LAT0, LON0 = 53.5, 9.9


def workload(vehicles, ticks, circles, seed):
    rng = np.random.default_rng(seed)
    m_lat = 111_320.0
    m_lon = 111_320.0 * math.cos(math.radians(LAT0))
    towns = rng.uniform(-30_000, 30_000, size=(12, 2))
    town_of_place = rng.integers(0, len(towns), 3_000)
    places = towns[town_of_place] + rng.normal(0, 2_500, size=(3_000, 2))
    by_town = [np.flatnonzero(town_of_place == k) for k in range(len(towns))]
    home = rng.integers(0, len(towns), vehicles)  # each vehicle works in one town

    def pick():
        return places[np.array([by_town[h][rng.integers(0, len(by_town[h]))] for h in home])]

    pos = pick()
    dest = pick()
    wait = np.zeros(vehicles, dtype=np.int64)
    xs = np.empty((ticks, vehicles)); ys = np.empty((ticks, vehicles))
    for t in range(ticks):
        speed = rng.uniform(20, 80, vehicles)
        delta = dest - pos
        dist = np.hypot(delta[:, 0], delta[:, 1])
        moving = wait == 0
        arrive = moving & (dist <= speed)
        step = np.where(dist[:, None] > 0, delta / np.maximum(dist, 1e-9)[:, None] * np.minimum(speed, dist)[:, None], 0)
        pos = np.where(moving[:, None], pos + step, pos)
        wait = np.where(arrive, rng.integers(1, 6, vehicles), np.maximum(wait - 1, 0))
        leave = (~moving) & (wait == 0)
        dest = np.where(leave[:, None], pick(), dest)
        noisy = pos + rng.normal(0, 10, size=pos.shape)
        xs[t] = noisy[:, 0]; ys[t] = noisy[:, 1]
    lat = LAT0 + ys / m_lat
    lon = LON0 + xs / m_lon
    # The busiest 100 m cells get the circles (coordinates shifted positive for the cell keys).
    cx = np.floor((xs + 200_000) / 100).astype(np.int64); cy = np.floor((ys + 200_000) / 100).astype(np.int64)
    keys, counts = np.unique(cx * 100_000 + cy, return_counts=True)
    top = keys[np.argsort(-counts, kind="stable")[:circles]]
    centres = np.stack([(top // 100_000 + 0.5) * 100 - 200_000, (top % 100_000 + 0.5) * 100 - 200_000], axis=1)
    clat = LAT0 + centres[:, 1] / m_lat
    clon = LON0 + centres[:, 0] / m_lon
    return lat, lon, clat, clon, m_lat, m_lon


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/geotrigger")
    ap.add_argument("--vehicles", type=int, default=10_000)
    ap.add_argument("--ticks", type=int, default=100)
    ap.add_argument("--circles", type=int, default=10_000)
    ap.add_argument("--radius", type=float, default=120)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    lat, lon, clat, clon, m_lat, m_lon = workload(a.vehicles, a.ticks, a.circles, a.seed)
    work = tempfile.mkdtemp(prefix="geotrigger-notify-")
    n = lat.size
    with open(os.path.join(work, "regions.json"), "w") as f:
        json.dump([{"identifier": f"r{i}", "content": {"title": "{event} {region.id}", "body": "{device} at {fix.time}"},
                    "trigger": {"repeats": True, "region": {"type": "circle", "id": f"c{i}",
                        "center": {"latitude": float(clat[i]), "longitude": float(clon[i])}, "radius": a.radius}}}
                   for i in range(len(clat))], f)
    with open(os.path.join(work, "trace.ndjson"), "w") as f:
        for t in range(lat.shape[0]):
            base = 1_760_000_000 + t * 10
            f.write("".join(f'{{"device":"v{d}","timestamp":{base + d * 0.0005:.4f},"latitude":{lat[t, d]:.7f},'
                            f'"longitude":{lon[t, d]:.7f},"horizontalAccuracy":10}}\n' for d in range(lat.shape[1])))
    case = os.path.join(work, "notify-dense")
    os.makedirs(case)
    with open(os.path.join(case, "regions.bin"), "wb") as f:
        f.write(struct.pack("<I", len(clat)))
        angles = np.arange(65) % 64 / 64 * 2 * math.pi
        for i in range(len(clat)):
            ring = np.stack([clon[i] + a.radius * np.cos(angles) / m_lon, clat[i] + a.radius * np.sin(angles) / m_lat], axis=1)
            f.write(struct.pack("<I", 65)); f.write(ring.astype("<f8").tobytes())
    with open(os.path.join(case, "fixes.bin"), "wb") as f:
        f.write(struct.pack("<I", n)); f.write(lon.reshape(-1).astype("<f8").tobytes()); f.write(lat.reshape(-1).astype("<f8").tobytes())

    out = os.path.join(work, "notifications.ndjson")
    # The workload's ~130 MB were just written: flushed first, so neither side competes with their writeback.
    os.sync()
    t0 = time.perf_counter()
    r = subprocess.run([a.bin, "replay", os.path.join(work, "regions.json"), os.path.join(work, "trace.ndjson"),
                        "--format", "ndjson", "--output", out], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"replay failed ({r.returncode}):\n{r.stderr[-2000:]}")
    with open(out, "rb") as f:
        notifications = sum(1 for _ in f)
    size = os.path.getsize(out)
    here = os.path.dirname(os.path.abspath(__file__))
    peer = subprocess.run([sys.executable, os.path.join(here, "shapely_peer.py"), case], capture_output=True, text=True, check=True)
    fields = peer.stdout.strip().splitlines()[-1].split("\t")
    shapely_rate, matches = float(fields[3]), int(fields[5])
    rate = n / wall
    print(f"notify-dense\tfixes={n}\tcircles={len(clat)}\tnotifications={notifications} ({notifications / n:.1%} of fixes; "
          f"{size / max(1, notifications):.0f} bytes each)\tpoints in a circle={matches / n:.2f} per fix")
    print(f"replay end to end (process start to exit, output to a file): {rate:,.0f} fixes/s ({wall:.2f} s)")
    print(f"shapely containment, same points and circles: {shapely_rate:,.0f} fixes/s ({fields[1]})")
    print(f"ratio replay/shapely = {rate / shapely_rate:.2f}")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
