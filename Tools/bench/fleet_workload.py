"""The fleet-like ingest workload shared by http_ingest.py and postgis_peer.py, so both sides (and `replay`) get the
same fixes: circle requests (radius 100-500 m) in a 20 km square, and per connection its own devices random-walking
up to 50 m per fix, in batches of NDJSON lines."""
import math, random

LAT0, LON0, SPAN = 52.4, 13.2, 0.18


def regions(count, seed):
    rnd = random.Random(seed)
    return [{"identifier": f"r{i}", "content": {"title": "{device} {event} {region.id}"},
             "trigger": {"repeats": True, "region": {"type": "circle", "id": f"c{i}",
                 "center": {"latitude": LAT0 + rnd.random() * SPAN, "longitude": LON0 + rnd.random() * SPAN * 1.6},
                 "radius": rnd.uniform(100, 500)}}} for i in range(count)]


def batches(connection, count, size, devices, seed):
    """`count` batches for one connection: lists of (device, timestamp, latitude, longitude) in time order."""
    r = random.Random(seed * 1000 + connection)
    pos = [[LAT0 + r.random() * SPAN, LON0 + r.random() * SPAN * 1.6] for _ in range(devices)]
    t = 1_760_000_000.0
    out = []
    for _ in range(count):
        batch = []
        for _ in range(size):
            d = r.randrange(devices)
            step, bearing = r.uniform(0, 50), r.uniform(0, 2 * math.pi)
            pos[d][0] += step * math.cos(bearing) / 111_320
            pos[d][1] += step * math.sin(bearing) / (111_320 * math.cos(math.radians(pos[d][0])))
            t += 0.001
            batch.append((f"c{connection}-d{d}", round(t, 3), round(pos[d][0], 7), round(pos[d][1], 7)))
        out.append(batch)
    return out


def ndjson(batch):
    return ("".join(f'{{"device":"{d}","timestamp":{t:.3f},"latitude":{la:.7f},"longitude":{lo:.7f},"horizontalAccuracy":5}}\n'
                    for d, t, la, lo in batch)).encode()


def percentile(sorted_seconds, p):
    """The p-th percentile of sorted durations in seconds, in milliseconds (nearest rank)."""
    return sorted_seconds[min(len(sorted_seconds) - 1, int(p / 100 * len(sorted_seconds)))] * 1000
