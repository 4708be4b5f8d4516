#!/usr/bin/env python3
"""The in-memory queries of `geotrigger serve` (issue 11) and the peer a fleet integrator builds instead, in one run.

1. `geotrigger-bench queries --export DIR`: the engine host answers device → regions, region → devices and nearby
   on a state built by the fix workload (its own table of rates).
2. PostgreSQL 15 + PostGIS 3 (its own cluster on loopback, as postgis_peer.py starts it): the same circles and each
   device's newest position, loaded with COPY into tables with GiST indexes on geography, asked the same three
   questions with one SQL statement each from N connections (threads; psycopg2 releases the GIL while it waits):
     device → regions:  the circles whose centre lies within their radius of the device's position
     region → devices:  the positions within the circle
     nearby:            the positions within R metres of a point, nearest first, at most 100
   PostGIS answers by plain containment; GeoTrigger answers from its state (accuracy band, dwell), so counts differ a
   little. Reported: queries/s for each, and GeoTrigger/PostGIS.

Run with Debian's /usr/bin/python3 (python3-psycopg2; Tools/setup.sh --bench installs it and PostgreSQL)."""
import argparse, os, random, re, socket, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_workload, postgis_peer

QUERIES = {
    "device-regions": ("SELECT r.id FROM regions r JOIN positions p ON ST_DWithin(r.center, p.g, r.radius, false) "
                       "AND ST_DWithin(r.center, p.g, 500, false) WHERE p.device = %s"),
    "region-devices": ("SELECT p.device FROM positions p JOIN regions r ON ST_DWithin(r.center, p.g, r.radius, false) "
                       "WHERE r.id = %s"),
    "nearby": ("SELECT device, ST_Distance(g, q, false) AS d FROM positions, "
               "(SELECT ST_SetSRID(ST_MakePoint(%s, %s), 4326)::geography AS q) AS point "
               "WHERE ST_DWithin(g, q, %s, false) ORDER BY d LIMIT 100"),
}


def load(cluster, folder):
    con = cluster.connect()
    con.autocommit = True
    cur = con.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS postgis")
    cur.execute("CREATE TABLE regions (id text PRIMARY KEY, lat float8, lon float8, radius float8, center geography)")
    cur.execute("CREATE TABLE positions (device text PRIMARY KEY, lat float8, lon float8, g geography)")
    with open(os.path.join(folder, "regions.csv")) as f:
        cur.copy_expert("COPY regions (id, lat, lon, radius) FROM STDIN WITH (FORMAT csv)", f)
    with open(os.path.join(folder, "positions.csv")) as f:
        cur.copy_expert("COPY positions (device, lat, lon) FROM STDIN WITH (FORMAT csv)", f)
    cur.execute("UPDATE regions SET center = ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography")
    cur.execute("UPDATE positions SET g = ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography")
    cur.execute("CREATE INDEX ON regions USING gist (center)")
    cur.execute("CREATE INDEX ON positions USING gist (g)")
    cur.execute("VACUUM ANALYZE regions")
    cur.execute("VACUUM ANALYZE positions")
    con.close()


def measure(cluster, name, arguments, connections):
    """Runs every argument tuple once, split over `connections` threads; returns (queries/s, answers per query)."""
    answers = [0] * connections
    def worker(k):
        con = cluster.connect()
        cur = con.cursor()
        for a in arguments[k::connections]:
            cur.execute(QUERIES[name], a)
            answers[k] += len(cur.fetchall())
        con.close()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(connections)]
    t0 = time.perf_counter()
    for t in threads: t.start()
    for t in threads: t.join()
    seconds = time.perf_counter() - t0
    return len(arguments) / seconds, sum(answers) / len(arguments)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=".build/release/geotrigger-bench")
    ap.add_argument("--regions", type=int, default=1000)
    ap.add_argument("--devices", type=int, default=10000)
    ap.add_argument("--fixes", type=int, default=200000)
    ap.add_argument("--density", default="sparse")
    ap.add_argument("--queries", type=int, default=500000, help="GeoTrigger queries per measurement")
    ap.add_argument("--peer-queries", type=int, default=20000, help="PostGIS queries per measurement")
    ap.add_argument("--radius", type=float, default=500)
    ap.add_argument("--connections", type=int, default=2)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()

    folder = tempfile.mkdtemp(prefix="geotrigger-queries-")
    r = subprocess.run([args.bench, "queries", "--regions", str(args.regions), "--devices", str(args.devices),
                        "--fixes", str(args.fixes), "--density", args.density, "--queries", str(args.queries),
                        "--radius", str(args.radius), "--export", folder], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"geotrigger-bench failed ({r.returncode}):\n{r.stderr[-2000:]}")
    print(r.stdout, end="")
    ours = {}
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if len(f) == 7 and f[1] == "host":
            ours[f[0]] = max(ours.get(f[0], 0.0), float(f[4]))

    rng = random.Random(args.seed)
    devices = [l.split(",")[0] for l in open(os.path.join(folder, "positions.csv"))]
    points = [tuple(map(float, l.split(",")[1:3])) for l in open(os.path.join(folder, "positions.csv"))]
    n = args.peer_queries
    work = {
        "device-regions": [(rng.choice(devices),) for _ in range(n)],
        "region-devices": [(f"c{rng.randrange(args.regions)}",) for _ in range(n)],
        "nearby": [(lon, lat, args.radius) for lat, lon in (rng.choice(points) for _ in range(max(1, n // 10)))],
    }
    cluster = postgis_peer.Cluster(fleet_workload.free_port())
    try:
        load(cluster, folder)
        print(f"# PostGIS 3 on PostgreSQL 15, {args.connections} connections; GeoTrigger's best of 1 or several tasks")
        print("query\tpostgis_queries\tpostgis_per_s\tpostgis_answers_per_query\tgeotrigger_per_s\tgeotrigger/postgis")
        for name, arguments in work.items():
            rate, answers = measure(cluster, name, arguments, args.connections)
            g = ours.get(name, 0.0)
            print(f"{name}\t{len(arguments)}\t{rate:.0f}\t{answers:.2f}\t{g:.0f}\t{g / rate:.1f}")
    finally:
        cluster.stop()
        subprocess.run(["rm", "-rf", folder])


if __name__ == "__main__":
    main()
