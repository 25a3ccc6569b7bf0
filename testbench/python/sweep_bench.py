"""The sweep benchmark of docs/sweeps.md: 8 points of `pp5 render --scene spheres` (GPs x Ring
channels) on a LocalCluster of 2 worker processes of one thread each, against the same points
one after another in this process on one thread (pp5.render(threads=1)). Prints both times
and their ratio. Not a test: the figure depends on the machine and its load.

    .venv/bin/python testbench/python/sweep_bench.py [--workers 2] [--screen 1280x1024]
"""

import argparse
import os
import time

import pp5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--screen", default="1280x1024")
    ap.add_argument("--scene", default="spheres")
    a = ap.parse_args()
    grid = {"scene": a.scene, "screen": a.screen, "gps": [4, 8, 16, 32], "ring_channels": [2, 8]}
    points = pp5.sweep.points(grid)

    from distributed import Client, LocalCluster

    # The cluster is started before the clock starts (as a notebook's would be).
    cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                           dashboard_address=":0", env={"RAYON_NUM_THREADS": "1"})
    client = Client(cluster)
    client.run(lambda: __import__("pp5") and None)  # workers import the module once
    t0 = time.perf_counter()
    df = pp5.sweep(grid, client, threads_per_point=1, progress=False)
    parallel = time.perf_counter() - t0
    client.close()
    cluster.close()
    assert df["error"].isna().all(), list(df["error"])

    t0, c0 = time.perf_counter(), time.process_time()
    rows = [pp5.sweep.run_point("render", p, threads=1) for p in points]
    sequential = time.perf_counter() - t0
    sequential_cpu = time.process_time() - c0
    assert [r["frame_cycles"] for r in rows] == list(df["frame_cycles"])

    print(f"{len(points)} points of --scene {a.scene} --screen {a.screen}; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"sequential, one process, one thread: {sequential:.1f} s ({sequential_cpu:.1f} s CPU)")
    print(f"sweep, {a.workers} worker processes of one thread: {parallel:.1f} s "
          f"({df['cpu_seconds'].sum():.1f} s CPU in the points)")
    print(f"ratio: {parallel / sequential:.2f}")


if __name__ == "__main__":
    main()
