#!/usr/bin/env python3
"""The operator console against a live `geotrigger serve`, driven by headless Chromium (the console's test and its
benchmark): regions drawn, a device moving after a POST, a notification listed, the explain panel's text, map tiles
fetched from a tile server started here on loopback. Prints what it measured; exits 1 with the first failed check.
    Tools/browser/console_check.py [--bin .build/debug/geotrigger] [--regions 10000] [--screenshot FILE]"""
import argparse
import http.server
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import fleet_workload  # noqa: E402  (wait_listening)
from cdp import Browser  # noqa: E402

DEPOT = (52.5200, 13.4000)


def png(rgb, size=256):
    """A solid-colour PNG tile."""
    raw = b"".join(b"\0" + bytes(rgb) * size for _ in range(size))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class Tiles(http.server.BaseHTTPRequestHandler):
    served = []
    tile = png((222, 232, 214))

    def do_GET(self):
        Tiles.served.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(self.tile)))
        self.end_headers()
        self.wfile.write(self.tile)

    def log_message(self, *args):
        pass


def requests_file(path, count, seed=47):
    rng = random.Random(seed)
    items = [{"identifier": "depot", "content": {"title": "Depot"},
              "trigger": {"type": "location", "repeats": True, "notifyOnEntry": True, "notifyOnExit": True,
                          "region": {"type": "circle", "id": "depot", "center": {"latitude": DEPOT[0], "longitude": DEPOT[1]}, "radius": 150}}}]
    for k in range(count - 1):
        lat, lon = DEPOT[0] + rng.uniform(0.02, 0.2) * rng.choice((-1, 1)), DEPOT[1] + rng.uniform(0.02, 0.3) * rng.choice((-1, 1))
        items.append({"identifier": f"zone-{k:05d}", "content": {"title": f"Zone {k}"},
                      "trigger": {"type": "location", "repeats": True,
                                  "region": {"type": "circle", "id": f"zone-{k:05d}", "center": {"latitude": lat, "longitude": lon},
                                             "radius": rng.uniform(50, 300)}}})
    with open(path, "w") as f:
        json.dump(items, f)


def post(port, path, body):
    r = urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body.encode(), method="POST",
                                                      headers={"Content-Type": "application/json"}), timeout=60)
    return r.status


def fix(device, t, lat, lon, accuracy=5):
    return json.dumps({"device": device, "timestamp": 1_760_000_000 + t, "latitude": lat, "longitude": lon, "horizontalAccuracy": accuracy})


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/debug/geotrigger")
    ap.add_argument("--regions", type=int, default=10_000)
    ap.add_argument("--devices", type=int, default=200, help="devices posted before the page loads")
    ap.add_argument("--screenshot")
    a = ap.parse_args()

    work = tempfile.mkdtemp(prefix="console-check-")
    tile_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tiles)
    threading.Thread(target=tile_server.serve_forever, daemon=True).start()
    tile_port = tile_server.server_address[1]
    requests_file(os.path.join(work, "regions.json"), a.regions)
    log = open(os.path.join(work, "serve.log"), "w+")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOTRIGGER_")}
    serve = subprocess.Popen([a.bin, "serve", "--database", os.path.join(work, "g.sqlite"), "--listen", "127.0.0.1:0",
                              "--regions", os.path.join(work, "regions.json"), "--clock", "event",
                              "--sink", "ndjson:" + os.path.join(work, "out.ndjson"),
                              "--console-tiles", f"http://127.0.0.1:{tile_port}/{{z}}/{{x}}/{{y}}.png",
                              "--console-tiles-attribution", "test tiles"], stderr=log, stdout=subprocess.DEVNULL, env=env)
    browser = None
    try:
        port = fleet_workload.wait_listening(serve, log, "geotrigger serve")
        rng = random.Random(7)
        fleet = "\n".join(fix(f"truck-{k}", 0, DEPOT[0] + rng.uniform(-0.1, 0.1), DEPOT[1] + rng.uniform(-0.15, 0.15)) for k in range(a.devices))
        check(post(port, "/v1/fixes", fleet) == 200, "posting the fleet")
        check(post(port, "/v1/fixes", fix("van-1", 0, DEPOT[0] + 0.01, DEPOT[1])) == 200, "posting van-1")

        browser = Browser()
        started = time.monotonic()
        browser.navigate(f"http://127.0.0.1:{port}/console#device=van-1")
        browser.wait_for("document.body.dataset.loaded === 'true' && Number(document.getElementById('map').dataset.drawnRegions) > 0",
                         "the regions to be loaded and drawn")
        loaded = time.monotonic() - started
        browser.wait_for("document.getElementById('stream-state').textContent === 'live'", "the live stream")
        live = time.monotonic() - started
        regions = int(browser.evaluate("document.getElementById('region-count').textContent"))
        drawn = int(browser.evaluate("document.getElementById('map').dataset.drawnRegions"))
        devices = int(browser.evaluate("document.getElementById('device-count').textContent"))
        check(regions == a.regions, f"the console lists {regions} regions, not {a.regions}")
        check(devices == a.devices + 1, f"the console lists {devices} devices, not {a.devices + 1}")
        check(0 < drawn <= regions, f"{drawn} regions drawn")
        browser.wait_for("Number(document.getElementById('map').dataset.tilesDrawn) > 0", "map tiles to be drawn")
        check(len(Tiles.served) > 0 and all(p.endswith(".png") for p in Tiles.served), f"tiles requested: {Tiles.served[:3]}")
        check(browser.evaluate("document.getElementById('attribution').textContent") == "test tiles", "the tiles' attribution")
        before = browser.evaluate("document.getElementById('selected-position').textContent")
        check(before.startswith(f"{DEPOT[0] + 0.01:.6f}"), f"van-1's position before: {before!r}")

        # van-1 drives into the depot: its marker moves and the entry is listed.
        posted = time.monotonic()
        check(post(port, "/v1/fixes", fix("van-1", 60, DEPOT[0], DEPOT[1] + 0.0005)) == 200, "posting van-1's move")
        browser.wait_for(f"document.getElementById('selected-position').textContent.startsWith('{DEPOT[0]:.6f}, {DEPOT[1] + 0.0005:.6f}')",
                         "van-1 to move on the console")
        moved = time.monotonic() - posted
        item = browser.wait_for("[...document.querySelectorAll('#notifications li')].map(li => li.textContent).find(t => t.includes('entry') && t.includes('depot') && t.includes('van-1'))",
                                "van-1's entry in the notification list")
        listed = time.monotonic() - posted
        text = browser.wait_for("[...document.querySelectorAll('#explain .decision')].map(d => d.textContent).find(t => t.startsWith('depot: inside') && t.includes('entered; notified'))",
                                "the explain panel to show van-1's entry into the depot")
        # One frame drawn whole, timed by the page, with everything in view and zoomed out (the worst case).
        browser.evaluate("view.zoom = 9, schedule(), true")
        browser.wait_for("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))", "two frames")
        frame_ms = float(browser.evaluate("document.getElementById('map').dataset.renderMs"))
        drawn_devices = int(browser.evaluate("document.getElementById('map').dataset.drawnDevices"))
        shot = browser.screenshot(a.screenshot or os.path.join(work, "console.png"))
        check(shot > 20_000, f"the screenshot is only {shot} bytes")
        print(json.dumps({"regions": regions, "regionsDrawn": drawn, "devices": devices, "tilesRequested": len(Tiles.served),
                          "pageLoadSeconds": round(loaded, 3), "streamLiveSeconds": round(live, 3),
                          "moveShownSeconds": round(moved, 3), "frameMs": frame_ms, "devicesInFrame": drawn_devices, "notificationListedSeconds": round(listed, 3),
                          "notification": item, "explain": text, "screenshotBytes": shot}))
        print(f"console with {regions:,} regions and {devices:,} devices: loaded and drawn in {loaded:.3f} s, stream live at {live:.3f} s; "
              f"a POSTed fix shown after {moved:.3f} s, its notification listed after {listed:.3f} s; "
              f"a whole frame at zoom 9 ({drawn_devices:,} devices in view) drawn in {frame_ms:.1f} ms")
        print("console check: passed")
    except AssertionError as e:
        print(f"console check: FAILED: {e}")
        log.seek(0)
        print(log.read()[-2000:])
        sys.exit(1)
    finally:
        if browser:
            browser.close()
        serve.terminate()
        serve.wait(timeout=30)
        tile_server.shutdown()


if __name__ == "__main__":
    main()
