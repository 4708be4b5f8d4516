#!/usr/bin/env python3
"""serve against replay, as the median of several whole runs (issue 49): each run is `http_ingest.py` (replay of the
same fixes before and after, serve's HTTP ingest between), printed as it ends; then the median of the runs' ratios.

One run moves with this machine's drift (BENCHMARKS §4): the median of five is the figure the goal is checked on.

Usage: serve_ratio.py [--bin .build/release/geotrigger] [--runs 5] [--batches 500] [http_ingest.py's other options]
"""
import argparse, os, re, statistics, subprocess, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/geotrigger")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--batches", type=int, default=500)
    a, rest = ap.parse_known_args()
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "http_ingest.py")
    ratios, serve_rates, replay_rates = [], [], []
    for k in range(1, a.runs + 1):
        r = subprocess.run([sys.executable, script, "--bin", a.bin, "--batches", str(a.batches)] + rest,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"run {k} failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
        ratio = re.search(r"ratio serve/replay = ([0-9.]+)", r.stdout)
        serve = re.search(r"serve HTTP ingest: fixes/s=([0-9,]+)", r.stdout)
        replay = re.search(r"replay \(same fixes, NDJSON file, in arrival order\): ([0-9,]+) fixes/s", r.stdout)
        if not (ratio and serve and replay):
            sys.exit(f"run {k}: unexpected output:\n{r.stdout[-2000:]}")
        ratios.append(float(ratio.group(1)))
        serve_rates.append(int(serve.group(1).replace(",", "")))
        replay_rates.append(int(replay.group(1).replace(",", "")))
        print(f"serve-ratio\trun {k}\tserve {serve_rates[-1]:,} fixes/s\treplay {replay_rates[-1]:,} fixes/s\t"
              f"ratio {ratios[-1]:.2f}", flush=True)
    print(f"serve-ratio\tmedian of {a.runs}\tserve {statistics.median(serve_rates):,.0f} fixes/s\t"
          f"replay {statistics.median(replay_rates):,.0f} fixes/s\tratio {statistics.median(ratios):.2f} "
          f"(runs {', '.join(f'{r:.2f}' for r in ratios)}; goal >= 0.5)", flush=True)


if __name__ == "__main__":
    main()
