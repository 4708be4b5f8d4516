#!/usr/bin/env python3
"""The replay report at scale (issue 47): size and time of `replay --report` on a notification-dense workload, beside
the same replay without it, and how long headless Chromium takes to render the page.

The workload is notify_dense.py's (vehicles between places clustered around a dozen towns, circles of 120 m on the
busiest 100 m cells); the default, 4,570 vehicles x 100 ticks, is 457,000 fixes against 10,000 circles. Steps:

1. `geotrigger replay REGIONS TRACE -o FILE` and the same with `--report PAGE`, each timed from process start to exit
   (alternating, best of --runs); the report's own writing time is what the replay prints on standard error.
2. `chromium --headless --dump-dom file://PAGE`, timed (start to exit, serialising the page's DOM included), and the
   page's own time to its first drawing (`data-first-draw-ms` on `#map`); it must reach `data-state="rendered"`.

Usage: report_scale.py [--bin .build/release/geotrigger] [--vehicles 4570] [--ticks 100] [--circles 10000]
                       [--runs 2] [--keep DIR]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from notify_dense import workload  # noqa: E402


def timed(command):
    t0 = time.perf_counter()
    r = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return wall, r.stderr


def peak_rss(command):
    """Peak resident set of one run, from GNU time when it is installed (else None)."""
    if not os.path.exists("/usr/bin/time"):
        return None
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, capture_output=True, text=True)
    return int(r.stderr.strip().splitlines()[-1]) * 1024 if r.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/geotrigger")
    ap.add_argument("--vehicles", type=int, default=4_570)
    ap.add_argument("--ticks", type=int, default=100)
    ap.add_argument("--circles", type=int, default=10_000)
    ap.add_argument("--radius", type=float, default=120)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--keep", help="write the workload and the page here and keep them")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    a = ap.parse_args()
    lat, lon, clat, clon, _, _ = workload(a.vehicles, a.ticks, a.circles, a.seed)
    work = a.keep or tempfile.mkdtemp(prefix="geotrigger-report-")
    os.makedirs(work, exist_ok=True)
    regions, trace = os.path.join(work, "regions.json"), os.path.join(work, "trace.ndjson")
    with open(regions, "w") as f:
        json.dump([{"identifier": f"r{i}", "content": {"title": "{event} {region.id}", "body": "{device} at {fix.time}"},
                    "trigger": {"repeats": True, "region": {"type": "circle", "id": f"c{i}", "name": f"Stop {i}",
                        "center": {"latitude": float(clat[i]), "longitude": float(clon[i])}, "radius": a.radius}}}
                   for i in range(len(clat))], f)
    with open(trace, "w") as f:
        for t in range(lat.shape[0]):
            base = 1_760_000_000 + t * 10
            f.write("".join(f'{{"device":"v{d}","timestamp":{base + d * 0.0005:.4f},"latitude":{lat[t, d]:.7f},'
                            f'"longitude":{lon[t, d]:.7f},"horizontalAccuracy":10}}\n' for d in range(lat.shape[1])))
    os.sync()
    out, page = os.path.join(work, "notifications.ndjson"), os.path.join(work, "report.html")
    plain_cmd = [a.bin, "replay", regions, trace, "--format", "ndjson", "-o", out]
    report_cmd = plain_cmd + ["--report", page]
    plain, with_report, written = [], [], []
    for _ in range(a.runs):
        plain.append(timed(plain_cmd)[0])
        wall, err = timed(report_cmd)
        with_report.append(wall)
        m = re.search(r"report: .* \((\d+) bytes, written in ([0-9.]+) s\)", err)
        written.append(float(m.group(2)) if m else float("nan"))
    with open(out, "rb") as f:
        notifications = sum(1 for _ in f)
    size = os.path.getsize(page)
    rss_plain, rss_report = peak_rss(plain_cmd), peak_rss(report_cmd)

    t0 = time.perf_counter()
    r = subprocess.run([a.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,1400",
                        "--dump-dom", "file://" + page], capture_output=True, text=True)
    render = time.perf_counter() - t0
    state = re.search(r'id="map"[^>]*data-state="(\w+)"', r.stdout)
    drawn = re.search(r'id="map"[^>]*data-first-draw-ms="(\d+)"', r.stdout)
    tracks = len(re.findall(r'class="track" data-device', r.stdout))

    n = lat.size
    best_plain, best_report = min(plain), min(with_report)
    print(f"report-scale\tfixes={n}\tcircles={len(clat)}\tdevices={a.vehicles}\tnotifications={notifications}")
    print(f"replay without --report: {best_plain:.2f} s ({n / best_plain:,.0f} fixes/s)   runs: {', '.join(f'{x:.2f}' for x in plain)}")
    print(f"replay with --report:    {best_report:.2f} s ({n / best_report:,.0f} fixes/s)   runs: {', '.join(f'{x:.2f}' for x in with_report)}")
    print(f"report adds {best_report - best_plain:.2f} s ({(best_report - best_plain) / best_plain:.0%} of the replay); "
          f"page written in {min(written):.2f} s; page {size:,} bytes ({size / 1e6:.1f} MB)")
    if rss_plain and rss_report:
        print(f"peak RSS: {rss_plain / 1e6:.0f} MB without, {rss_report / 1e6:.0f} MB with --report")
    print(f"chromium --dump-dom: {render:.1f} s, #map data-state={state.group(1) if state else 'missing'}, "
          f"first drawing done {drawn.group(1) if drawn else '?'} ms after navigation started, "
          f"{tracks} track polylines in the first view")
    if not a.keep:
        shutil.rmtree(work)
    if not state or state.group(1) != "rendered":
        sys.exit("the page did not finish rendering")


if __name__ == "__main__":
    main()
