#!/usr/bin/env python3
"""Builds the fuzz seed corpora in a temporary directory at run time: slices of the real data in ../shared/data (never
copied into the repository; each folder's PROVENANCE says where it comes from) plus small hand-made seeds for the
formats that have no shared data. Usage: seeds.py SHARED_DATA_DIR CORPUS_DIR (SHARED_DATA_DIR may be absent)."""
import glob, json, os, sys

shared, root = sys.argv[1], sys.argv[2]
MAX = 4000  # below the targets' -max_len, so a seed is never truncated mid-record by libFuzzer
have_shared = os.path.isdir(shared)


def put(corpus, name, data):
    os.makedirs(os.path.join(root, corpus), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(root, corpus, name), "wb") as f:
        f.write(data)


def slices(data, limit, header=b""):
    """Line-aligned pieces of at most `limit` bytes, each after `header`."""
    piece = header
    for line in data.splitlines(keepends=True):
        if len(piece) + len(line) > limit and len(piece) > len(header):
            yield piece
            piece = header
        piece += line[:limit]
    if len(piece) > len(header):
        yield piece


# Hand-made seeds: formats with no shared data, and the corners the real data does not show.
fixes = [
    '{"device":"truck-12","timestamp":"2026-11-20T08:15:02Z","latitude":52.5201,"longitude":13.4049,"horizontalAccuracy":8}',
    '{"device":"a","timestamp":1763626502,"latitude":-33.9,"longitude":151.2,"altitude":12.5,"speed":3,"course":270}',
    '{"timestamp":1763626502123,"latitude":0,"longitude":-180,"horizontalAccuracy":null,"extra":{"a":[1,2,{"b":null}]}}',
    '{"device":"esc\\u00e9\\n","timestamp":"2026-11-20T08:15:02.250+01:00","latitude":1e1,"longitude":-0.5E-3}',
    '{"device":42,"timestamp":"2026-11-20 08:15:02","latitude":"52.5","longitude":13.4}',
    '[{"device":"x","timestamp":0,"latitude":90,"longitude":180}]',
]
sightings = [
    '{"device":"gw-1","timestamp":"2026-11-20T08:15:02Z","uuid":"f7826da6-4fa2-4e98-8024-bc5b71e0893e","major":1,"minor":2,"rssi":-60,"txPower":-59,"address":"aa:bb:cc:dd:ee:ff"}',
    '{"device":"gw-2","timestamp":1763626502,"identity":{"type":"altbeacon","id1":"2f234454-cf6d-4a0f-adf2-f4911ba9ffa6","id2":1,"id3":2},"rssi":-75,"txPower":-59}',
    '{"device":"gw-3","timestamp":1763626502000,"namespace":"12345678901234678901","instance":"000000000001","rssi":-90,"txPower":-29,"address":"AA-BB-CC-DD-EE-FF"}',
    '{"device":"gw-4","timestamp":"2026-11-20T08:15:02Z","identity":{"type":"ibeacon","uuid":"F7826DA64FA24E988024BC5B71E0893E","major":65535,"minor":0},"rssi":20}',
]
for k, line in enumerate(fixes):
    put("ndjson", f"hand{k}", line + "\n")
put("ndjson", "hand-all", "\n".join(fixes) + "\n")
for k, line in enumerate(sightings):
    put("sightings", f"hand{k}", line + "\n")
put("sightings", "hand-all", "\r\n".join(sightings))
put("framing", "fixes", "\n".join(fixes[:5]) + "\n\n")
put("framing", "sightings", "\n".join(sightings))
put("framing", "array", "[" + ",".join(fixes[:5]) + "]")
put("framing", "array-sightings", " \n[" + ",\n".join(sightings) + "]\n")

traccar = [
    '[{"id":1,"deviceId":7,"fixTime":"2026-11-20T08:15:02.000+00:00","latitude":52.52,"longitude":13.405,"altitude":34.0,"speed":12.5,"course":90.0,"accuracy":0.0,"valid":true}]',
    '{"deviceId":8,"deviceTime":"2026-11-20T08:15:03Z","latitude":-1.5,"longitude":36.8,"accuracy":12.0,"valid":false}\n'
    '{"uniqueId":"imei-1","fixTime":"2026-11-20T08:15:04Z","latitude":0.0,"longitude":0.0}\n',
    '{"position":{"fixTime":"2026-11-20T08:15:05Z","latitude":48.1,"longitude":11.5,"speed":0,"attributes":{"ignition":true}},'
    '"device":{"id":3,"uniqueId":"123456789012345","name":"Van 3"}}',
    '{"event":{"type":"deviceOnline","deviceId":3},"device":{"id":3,"name":"Van 3"}}\n'
    '{"position":{"deviceTime":"2026-11-20T08:15:06Z","latitude":10,"longitude":20},"device":{"name":"Van 3"}}',
]
for k, doc in enumerate(traccar):
    put("traccar", f"hand{k}", doc)

circle = {"identifier": "depot-north-arrivals",
          "content": {"title": "Arrived at {region.name}", "subtitle": "{device}", "body": "{device} entered {region.name} at {fix.time}",
                      "badge": 1, "sound": "default", "categoryIdentifier": "arrival", "threadIdentifier": "depot-north",
                      "summaryArgument": "{device}", "userInfo": {"any": ["JSON", "value"]}},
          "trigger": {"type": "location", "region": {"type": "circle", "id": "depot-north", "name": "Depot North",
                                                      "center": {"latitude": 52.52, "longitude": 13.405}, "radius": 150},
                      "notifyOnEntry": True, "notifyOnExit": False, "repeats": True, "devices": ["truck-12", "truck-13"],
                      "dwell": 0, "hysteresis": 0, "maximumAccuracy": None, "initialTrigger": False, "minimumInterval": 0}}
square = [[[10, 10], [11, 10], [11, 11], [10, 11], [10, 10]], [[10.2, 10.2], [10.2, 10.4], [10.4, 10.4], [10.4, 10.2], [10.2, 10.2]]]
antimeridian = [[[179, -1], [-179, -1], [-179, 1], [179, 1], [179, -1]]]
requests = [
    circle,
    {"identifier": "poly", "trigger": {"region": {"type": "polygon", "id": "p", "geometry": {"type": "Polygon", "coordinates": square}},
                                       "notifyOnExit": False, "hysteresis": 5}},
    {"identifier": "multi", "content": {"title": "{event} {region.id}"},
     "trigger": {"region": {"type": "polygon", "id": "m", "geometry": {"type": "MultiPolygon", "coordinates": [square, antimeridian]}}}},
    {"identifier": "bow-tie", "trigger": {"region": {"type": "polygon", "id": "b", "geometry": {"type": "Polygon",
                                          "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}}}},
    {"identifier": "ibeacon", "trigger": {"region": {"type": "beacon", "id": "door", "uuid": "f7826da6-4fa2-4e98-8024-bc5b71e0893e",
                                                     "major": 1, "minor": 2, "proximity": "near"}, "exitTimeout": 45, "devices": "*"}},
    {"identifier": "eddystone", "trigger": {"region": {"type": "beacon", "id": "e", "namespace": "12345678901234678901",
                                                       "instance": "000000000001"}, "dwell": 30, "minimumInterval": 600}},
]
for k, r in enumerate(requests):
    put("requests", f"hand{k}", json.dumps(r))
put("requests", "hand-array", json.dumps(requests[:3]))
put("geojson", "hand-requests", json.dumps(requests[1:3]))
put("geojson", "hand-features", json.dumps({"type": "FeatureCollection", "features": [
    {"type": "Feature", "id": "sq", "properties": {"name": "Square", "title": "In {region.name}", "notifyOnExit": False},
     "geometry": {"type": "Polygon", "coordinates": square}},
    {"type": "Feature", "id": 7, "properties": {"radius": 200, "repeats": True}, "geometry": {"type": "Point", "coordinates": [-0.11, 51.53]}},
    {"type": "Feature", "properties": {"identifier": "am", "trigger": {"dwell": 10}},
     "geometry": {"type": "MultiPolygon", "coordinates": [antimeridian]}}]}))

if have_shared:
    for path in sorted(glob.glob(f"{shared}/gpx/*.gpx")):
        data = open(path, "rb").read()
        put("gpx", os.path.basename(path), data[:MAX * 2])
    for path in sorted(glob.glob(f"{shared}/gpsd/*.log")):
        # A few line-aligned slices per capture: the start (gpsd's # header) and some of the middle.
        for k, piece in enumerate(list(slices(open(path, "rb").read(), MAX))[:4]):
            put("nmea", f"{os.path.basename(path)}.{k}", piece)
    for path in sorted(glob.glob(f"{shared}/traces/*.csv")):
        data = open(path, "rb").read()
        header, _, rest = data.partition(b"\n")
        for k, piece in enumerate(list(slices(rest, MAX, header + b"\n"))[:16]):
            put("csv", f"{os.path.basename(path)}.{k}", piece)
        # The same fixes as NDJSON (field names per SPEC §2), so the fix decoders see real coordinates and times too.
        lines = []
        for row in rest.decode().splitlines()[:200]:
            c = row.split(",")
            if len(c) > 6 and c[4] and c[5]:
                ts = c[3].strip('"').replace(" ", "T") + "Z"
                o = {"device": c[1].strip('"'), "timestamp": ts, "latitude": float(c[4]), "longitude": float(c[5])}
                if c[6]:
                    o["course"] = float(c[6])
                lines.append(json.dumps(o, separators=(",", ":")))
        for k in range(0, len(lines), 25):
            put("ndjson", f"bus{k}", "\n".join(lines[k:k + 25]) + "\n")
            put("framing", f"bus{k}", "\n".join(lines[k:k + 25]) + "\n")
    for path in sorted(glob.glob(f"{shared}/owntracks/messages/*")):
        put("owntracks", os.path.basename(path), open(path, "rb").read()[:MAX])
    vectors = json.load(open(f"{shared}/beacons/beacon-vectors.json"))["vectors"]
    for k, v in enumerate(vectors):
        e = v.get("expect") or {}
        if e.get("frameType") == "eddystone-uid" and "namespace" in e:
            ident = {"namespace": e["namespace"], "instance": e["instance"]}
        elif "uuid" in e and "major" in e and "minor" in e:
            ident = {"uuid": e["uuid"], "major": e["major"], "minor": e["minor"]}
        else:
            continue
        s = {"device": "gw", "timestamp": 1763626502 + k, **ident, "rssi": -70}
        if isinstance(e.get("txPower"), int):
            s["txPower"] = e["txPower"]
        put("sightings", f"vector{k}", json.dumps(s) + "\n")
    # Region files: single features of the real GeoJSON (small enough for -max_len), given the identifier (and,
    # for the cycle-hire points, the radius) that a region file needs.
    for path in sorted(glob.glob(f"{shared}/polygons/*.geojson")):
        base = os.path.basename(path)
        features = json.load(open(path))["features"]
        kept = 0
        for k, feature in enumerate(features):
            props = dict(feature.get("properties") or {})
            props["identifier"] = f"{base}-{k}"
            if feature["geometry"]["type"] == "Point":
                props["radius"] = 300
            doc = json.dumps({"type": "FeatureCollection", "features": [{**feature, "properties": props}]})
            if len(doc) <= MAX:
                put("geojson", f"{base}.{k}", doc)
                kept += 1
            if kept >= 40:
                break
    for path in sorted(glob.glob(f"{shared}/polygons/turf/**/*.geojson", recursive=True)):
        data = open(path, "rb").read()
        if len(data) <= MAX:
            put("geojson", "turf-" + os.path.relpath(path, f"{shared}/polygons/turf").replace("/", "-"), data)
    for path in sorted(glob.glob(f"{shared}/polygons/turf/**/*.geojson", recursive=True))[:20]:
        try:
            feature = json.load(open(path))
        except ValueError:
            continue
        for f in feature.get("features", [feature]):
            g = f.get("geometry") or {}
            if g.get("type") in ("Polygon", "MultiPolygon"):
                r = {"identifier": os.path.basename(path), "trigger": {"region": {"type": "polygon", "id": "t", "geometry": g}}}
                doc = json.dumps(r)
                if len(doc) <= MAX:
                    put("requests", "turf-" + os.path.basename(path), doc)
                break
else:
    # Tiny fallback seeds, so every target still starts from something of its format.
    put("gpx", "tiny", '<?xml version="1.0"?><gpx><trk><name>t</name><trkseg><trkpt lat="1" lon="2"><time>2026-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>')
    put("nmea", "tiny", "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n")
    put("csv", "tiny", "device,timestamp,latitude,longitude\nbus,2026-01-26 15:57:02,53.44451,-2.925173\n")
    put("owntracks", "tiny", '{"_type":"location","tid":"jj","tst":1763626502,"lat":52.5,"lon":13.4,"acc":10,"topic":"owntracks/jane/phone"}')

# The detection target sees every trace format, as `replay` would.
for corpus in ("gpx", "nmea", "csv", "ndjson", "owntracks", "traccar"):
    d = os.path.join(root, corpus)
    for name in sorted(os.listdir(d))[:30]:
        put("detect", f"{corpus}-{name}", open(os.path.join(d, name), "rb").read())
