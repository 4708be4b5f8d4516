#!/usr/bin/env python3
"""The peer a fleet integrator builds instead of GeoTrigger: PostgreSQL 15 + PostGIS 3 on loopback, its own data
directory, durable (fsync on, synchronous_commit on), fed the same workload as http_ingest.py from the same number
of connections. Per batch, in one transaction: COPY the fixes into a staging table, then ONE statement that stores
the fixes, finds the circles holding each fix (GiST index on the centres, a constant maximum radius so the index
serves), walks each (device, circle) pair through the batch's fixes in time order against the stored state, writes
entries and exits to an outbox table and updates the state. A device's first fix sets its state silently. This is
the fastest form measured (../shared/PEERS-NOTES.md: jit off, materialized CTEs, FULL JOIN against the old state).

Used by http_ingest.py --postgis; run alone it prints its own line."""
import io, os, shutil, subprocess, tempfile

import fleet_workload

BATCH_SQL = """
WITH pts AS MATERIALIZED (
    SELECT n, device, ts, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography AS g,
           n = max(n) OVER (PARTITION BY device) AS last
    FROM staging),
stored AS (INSERT INTO fixes (device, ts, g) SELECT device, ts, g FROM pts),
hits AS MATERIALIZED (
    SELECT p.n, p.device, r.id AS region FROM pts p JOIN regions r
      ON ST_DWithin(r.center, p.g, 500, false) AND ST_DWithin(r.center, p.g, r.radius, false)),
before AS MATERIALIZED (
    SELECT i.device, i.region FROM inside i WHERE i.device IN (SELECT device FROM pts)),
pairs AS MATERIALIZED (
    SELECT device, region FROM hits UNION SELECT device, region FROM before),
seq AS MATERIALIZED (
    SELECT pr.device, pr.region, p.n, p.ts, p.last, h.n IS NOT NULL AS now_in,
           lag(h.n IS NOT NULL) OVER (PARTITION BY pr.device, pr.region ORDER BY p.ts, p.n) AS prev_in
    FROM pairs pr JOIN pts p ON p.device = pr.device
    LEFT JOIN hits h ON h.n = p.n AND h.region = pr.region),
judged AS MATERIALIZED (
    SELECT s.*, COALESCE(s.prev_in,
                         CASE WHEN EXISTS (SELECT 1 FROM known k WHERE k.device = s.device)
                              THEN EXISTS (SELECT 1 FROM before b WHERE b.device = s.device AND b.region = s.region)
                              ELSE s.now_in END) AS was_in
    FROM seq s),
events AS (
    INSERT INTO outbox (device, region, event, ts)
    SELECT device, region, CASE WHEN now_in THEN 'entry' ELSE 'exit' END, ts FROM judged WHERE now_in <> was_in
    RETURNING event),
gone AS (
    DELETE FROM inside i USING judged j WHERE j.last AND NOT j.now_in AND i.device = j.device AND i.region = j.region),
came AS (
    INSERT INTO inside (device, region) SELECT device, region FROM judged WHERE last AND now_in ON CONFLICT DO NOTHING),
seen AS (
    INSERT INTO known (device) SELECT DISTINCT device FROM pts ON CONFLICT DO NOTHING)
SELECT count(*) FILTER (WHERE event = 'entry'), count(*) FILTER (WHERE event = 'exit') FROM events
"""

SCHEMA = """
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE TABLE regions (id int PRIMARY KEY, center geography(Point, 4326) NOT NULL, radius float8 NOT NULL);
CREATE TABLE fixes (device text NOT NULL, ts float8 NOT NULL, g geography(Point, 4326) NOT NULL);
CREATE TABLE known (device text PRIMARY KEY);
CREATE TABLE inside (device text NOT NULL, region int NOT NULL, PRIMARY KEY (device, region));
CREATE TABLE outbox (id bigserial PRIMARY KEY, device text NOT NULL, region int NOT NULL, event text NOT NULL, ts float8 NOT NULL);
"""


def binaries():
    base = "/usr/lib/postgresql/15/bin"
    if not os.path.exists(os.path.join(base, "initdb")):
        raise SystemExit("postgis peer: PostgreSQL 15 is not installed (Tools/setup.sh --bench installs it)")
    return base


class Cluster:
    """A throw-away PostgreSQL cluster on a free loopback port, run as user postgres."""

    def __init__(self, port):
        import pwd
        self.bin = binaries()
        self.dir = tempfile.mkdtemp(prefix="geotrigger-postgis-")
        self.port = port
        pg = pwd.getpwnam("postgres")
        os.chown(self.dir, pg.pw_uid, pg.pw_gid)
        self.as_pg = ["runuser", "-u", "postgres", "--"]
        subprocess.run(self.as_pg + [f"{self.bin}/initdb", "-D", f"{self.dir}/data", "-A", "trust", "-U", "postgres"],
                       check=True, stdout=subprocess.DEVNULL)
        opts = (f"-p {port} -k {self.dir} -c listen_addresses=127.0.0.1 -c shared_buffers=1GB -c wal_buffers=64MB "
                f"-c max_wal_size=4GB -c jit=off -c fsync=on -c synchronous_commit=on")
        subprocess.run(self.as_pg + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-l", f"{self.dir}/log", "-w",
                                     "-o", opts, "start"], check=True, stdout=subprocess.DEVNULL)

    def connect(self):
        import psycopg2
        return psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres")

    def stop(self):
        subprocess.run(self.as_pg + [f"{self.bin}/pg_ctl", "-D", f"{self.dir}/data", "-m", "fast", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.dir, ignore_errors=True)


def run(requests, work_items, warmup, port):
    """Loads the circles, runs `warmup` batches per connection, then the rest timed. Returns a dict of results."""
    cluster = Cluster(port)
    try:
        c = cluster.connect()
        cur = c.cursor()
        cur.execute(SCHEMA)
        for i, r in enumerate(requests):
            ctr = r["trigger"]["region"]["center"]
            cur.execute("INSERT INTO regions VALUES (%s, ST_SetSRID(ST_MakePoint(%s, %s), 4326)::geography, %s)",
                        (i, ctr["longitude"], ctr["latitude"], r["trigger"]["region"]["radius"]))
        cur.execute("CREATE INDEX ON regions USING gist (center); ANALYZE regions")
        c.commit()
        def connect(_):
            conn = cluster.connect()
            cur = conn.cursor()
            cur.execute("CREATE TEMP TABLE staging (n int, device text, ts float8, lat float8, lon float8) ON COMMIT DELETE ROWS")
            conn.commit()

            def send(batch):
                buf = io.StringIO("".join(f"{k}\t{d}\t{t}\t{la}\t{lo}\n" for k, (d, t, la, lo) in enumerate(batch)))
                cur.copy_from(buf, "staging", columns=("n", "device", "ts", "lat", "lon"))
                cur.execute(BATCH_SQL)
                entries, exits = cur.fetchone()
                conn.commit()
                return len(batch), entries, exits
            return send

        elapsed, latencies, totals = fleet_workload.run_connections(work_items, warmup, connect)
        pct = lambda p: fleet_workload.percentile(latencies, p)
        return {"fixes": totals[0], "entries": totals[1], "exits": totals[2], "rate": totals[0] / elapsed,
                "p50": pct(50), "p99": pct(99)}
    finally:
        cluster.stop()


if __name__ == "__main__":
    import argparse, socket
    import fleet_workload as w
    ap = argparse.ArgumentParser()
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--batches", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--devices", type=int, default=2500)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    items = [w.batches(c, a.warmup + a.batches, a.batch_size, a.devices, a.seed) for c in range(a.connections)]
    r = run(w.regions(a.requests, a.seed), items, a.warmup, port)
    print(f"postgis fixes/s={r['rate']:,.0f} entries={r['entries']} exits={r['exits']} batch_latency_ms p50={r['p50']:.1f} p99={r['p99']:.1f}")
