#!/usr/bin/env python3
"""Writes GeoTrigger's demo data (Data/): hand-drawn regions in Berlin and two trucks driving past them.

Deterministic: re-running it produces the same files. Usage: Tools/make-demo-data.py [OUT_DIR]
"""
import json
import math
import sys
from datetime import datetime, timedelta, timezone

OUT = sys.argv[1] if len(sys.argv) > 1 else "Data"
START = datetime(2026, 11, 20, 7, 0, 0, tzinfo=timezone.utc)

REQUESTS = [
    {"identifier": "depot-north-arrivals",
     "content": {"title": "Arrived at {region.name}", "subtitle": "{device}",
                 "body": "{device} entered {region.name} at {fix.time}", "badge": 1, "sound": "default",
                 "categoryIdentifier": "arrival", "userInfo": {"dock": "North"}},
     "trigger": {"type": "location", "region": {"type": "circle", "id": "depot-north", "name": "Depot North",
                 "center": {"latitude": 52.5400, "longitude": 13.4000}, "radius": 150},
                 "notifyOnEntry": True, "notifyOnExit": False, "repeats": True, "hysteresis": 10}},
    {"identifier": "depot-north-departures",
     "content": {"title": "Left {region.name}", "body": "{device} left at {fix.time}", "categoryIdentifier": "departure"},
     "trigger": {"region": {"type": "circle", "id": "depot-north", "name": "Depot North",
                 "center": {"latitude": 52.5400, "longitude": 13.4000}, "radius": 150},
                 "notifyOnEntry": False, "notifyOnExit": True, "repeats": True, "hysteresis": 10}},
    {"identifier": "loading-bay-dwell",
     "content": {"title": "{device} is loading", "body": "At the loading bay since {fix.time}", "categoryIdentifier": "dwell"},
     "trigger": {"region": {"type": "circle", "id": "loading-bay", "name": "Loading bay",
                 "center": {"latitude": 52.5402, "longitude": 13.4010}, "radius": 40},
                 "notifyOnExit": False, "repeats": True, "dwell": 60}},
    {"identifier": "city-centre",
     "content": {"title": "{event} city centre", "body": "{device}: {event} {region.name} at {fix.latitude}, {fix.longitude}",
                 "categoryIdentifier": "zone"},
     "trigger": {"region": {"type": "polygon", "id": "mitte", "name": "Mitte",
                 "geometry": {"type": "Polygon", "coordinates": [[
                     [13.3800, 52.5100], [13.4200, 52.5100], [13.4250, 52.5250], [13.4000, 52.5300],
                     [13.3750, 52.5230], [13.3800, 52.5100]]]}},
                 "repeats": True, "devices": ["truck-12", "truck-13"]}},
    {"identifier": "tempelhof-field-once",
     "content": {"title": "First visit to {region.name}", "body": "{device} was first", "categoryIdentifier": "zone"},
     "trigger": {"region": {"type": "polygon", "id": "tempelhof", "name": "Tempelhofer Feld",
                 "geometry": {"type": "Polygon", "coordinates": [
                     [[13.3930, 52.4680], [13.4110, 52.4680], [13.4110, 52.4790], [13.3930, 52.4790], [13.3930, 52.4680]],
                     [[13.3990, 52.4720], [13.4050, 52.4720], [13.4050, 52.4750], [13.3990, 52.4750], [13.3990, 52.4720]]]}},
                 "notifyOnExit": False, "repeats": False}},
]

# Waypoints (lat, lon, seconds to wait there) per truck; driving at ~12 m/s between them, a fix every 5 s.
ROUTES = {
    "truck-12": [(52.5460, 13.4030, 0), (52.5403, 13.4011, 150), (52.5395, 13.4060, 0), (52.5300, 13.4050, 0), (52.5200, 13.4000, 30),
                 (52.5050, 13.3990, 0), (52.4850, 13.4000, 0), (52.4735, 13.4020, 0), (52.4700, 13.4060, 0)],
    "truck-13": [(52.5480, 13.3950, 0), (52.5402, 13.4012, 20), (52.5390, 13.3990, 0), (52.5250, 13.3900, 0),
                 (52.5150, 13.3850, 0), (52.4900, 13.3960, 0), (52.4760, 13.3960, 0)],
}


def metres(a, b):
    dlat = (b[0] - a[0]) * 111_320
    dlon = (b[1] - a[1]) * 111_320 * math.cos(math.radians(a[0]))
    return math.hypot(dlat, dlon)


def track(points, start):
    fixes, t = [], start
    for k, (lat, lon, wait) in enumerate(points):
        for _ in range(0, int(wait), 5):
            fixes.append((t, lat, lon))
            t += timedelta(seconds=5)
        if k + 1 < len(points):
            nxt = points[k + 1]
            steps = max(1, int(metres((lat, lon), nxt) / 60))  # 12 m/s × 5 s
            for s in range(steps):
                f = s / steps
                fixes.append((t, lat + (nxt[0] - lat) * f, lon + (nxt[1] - lon) * f))
                t += timedelta(seconds=5)
    fixes.append((t, points[-1][0], points[-1][1]))
    return fixes


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    with open(f"{OUT}/demo-requests.json", "w") as f:
        json.dump(REQUESTS, f, indent=2)
        f.write("\n")
    tracks = {name: track(points, START + timedelta(seconds=60 * k)) for k, (name, points) in enumerate(ROUTES.items())}
    with open(f"{OUT}/demo-drive.gpx", "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write('<gpx version="1.1" creator="GeoTrigger Tools/make-demo-data.py" xmlns="http://www.topografix.com/GPX/1/1">\n')
        f.write('  <metadata><name>Two trucks past hand-drawn regions in Berlin</name></metadata>\n')
        for name, fixes in tracks.items():
            f.write(f"  <trk><name>{name}</name><trkseg>\n")
            for t, lat, lon in fixes:
                f.write(f'    <trkpt lat="{lat:.6f}" lon="{lon:.6f}"><ele>40</ele><time>{iso(t)}</time><hdop>0.8</hdop></trkpt>\n')
            f.write("  </trkseg></trk>\n")
        f.write("</gpx>\n")
    with open(f"{OUT}/demo-drive.csv", "w") as f:
        f.write("device,timestamp,latitude,longitude,accuracy\n")
        rows = sorted((t, name, lat, lon) for name, fixes in tracks.items() for t, lat, lon in fixes)
        for t, name, lat, lon in rows:
            f.write(f"{name},{iso(t)},{lat:.6f},{lon:.6f},4\n")


if __name__ == "__main__":
    main()
