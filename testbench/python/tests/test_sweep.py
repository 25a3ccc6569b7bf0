"""pp5.sweep on a real distributed.LocalCluster of 2 worker processes (one thread each): the
rows equal each point run alone (pp5.render, and the CLI's JSON); a worker killed by SIGKILL
in the middle of a sweep is replaced and the sweep completes with every row right; a point
with a bad option is a row with its error; board runs (sweep_runs); the TOML entry point.
Small studies (a fraction of a second each) keep the file under a minute on 2 cores."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest

import pp5

distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

GRID = {
    "scene": ["random:n=30,size=0.1", "random:n=60,size=0.06,seed=2"],
    "screen": "256x128",
    "renderers": 2,
    "gps": [0, 4, 16],
    "ring_channels": [1, 4],
}
FIGURES = ["frame_cycles", "frame_us", "prims_per_sec", "stage_primitives", "cycles_full",
           "cycles_renderers_alone", "ring_util_max", "bound", "verdict"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def alone():
    """Each point of GRID run alone in this process: its figures."""
    return [pp5.sweep.figures(pp5.render(**p, threads=1)) for p in pp5.sweep.points(GRID)]


def row_value(df, k, name):
    v = df[name][k]
    return None if pd.isna(v) else (v.item() if hasattr(v, "item") else v)


def same(row, expected):
    for k in FIGURES:
        if expected[k] is None:
            assert pd.isna(row[k]), k
        else:
            assert row[k] == expected[k], k


def test_points_of_a_grid():
    pts = pp5.sweep.points(GRID)
    assert len(pts) == 12
    assert pts[0] == {"scene": GRID["scene"][0], "screen": "256x128", "renderers": 2, "gps": 0,
                      "ring_channels": 1}
    assert [p["ring_channels"] for p in pts[:2]] == [1, 4]  # the last axis varies fastest
    assert pp5.sweep.points([{"gps": 1}, {"gps": 2}]) == [{"gps": 1}, {"gps": 2}]
    with pytest.raises(TypeError):
        pp5.sweep.points("gps")


def test_rows_equal_each_point_alone(client, alone, pp5_cli, tmp_path):
    df = pp5.sweep(GRID, client, progress=False, out=tmp_path / "s.csv")
    assert len(df) == 12 and df["error"].isna().all()
    pts = pp5.sweep.points(GRID)
    for (_, row), p, expected in zip(df.iterrows(), pts, alone):
        assert row["scene"] == p["scene"] and row["gps"] == p["gps"]
        assert row["ring_channels"] == p["ring_channels"]
        same(row, expected)
    # The CLI's JSON for the same options gives the same figures, every one of them.
    for k, p in enumerate(pts):
        out = subprocess.run(
            [str(pp5_cli), "render", "--scene", p["scene"], "--screen", p["screen"],
             "--renderers", "2", "--gps", str(p["gps"]), "--ring-channels",
             str(p["ring_channels"]), "--report", "json", "-o", str(tmp_path / "x.png")],
            capture_output=True, text=True, check=True,
        ).stdout
        cli = pp5.sweep.figures(json.loads(out))
        assert cli == alone[k]
        for name, value in cli.items():
            assert row_value(df, k, name) == value, (k, name)
    back = pd.read_csv(tmp_path / "s.csv")
    assert list(back["frame_cycles"]) == list(df["frame_cycles"])


def test_a_bad_point_is_a_row_with_its_error(client):
    pts = [
        {"scene": "random:n=20,size=0.1", "screen": "128x128", "renderers": 1},
        {"scene": "random:n=20,size=0.1", "screen": "128x128", "renderers": 1, "gps": 99},
        {"scene": "nonesuch", "screen": "128x128"},
        {"scene": "triangle", "screen": "128x128", "colour": "red"},
        {"scene": "triangle", "screen": "128x128", "renderers": 1},
    ]
    df = pp5.sweep(pts, client, progress=False)
    assert list(df["error"].isna()) == [True, False, False, False, True]
    assert df["error"][1].startswith("ValueError: gps 99")
    assert "nonesuch" in df["error"][2]
    assert df["error"][3].startswith("TypeError") and "colour" in df["error"][3]
    assert pd.isna(df["frame_cycles"][1]) and df["frame_cycles"][0] > 0
    assert df["frame_cycles"][4] == pp5.render("triangle", screen="128x128", renderers=1).frame_cycles


def test_a_killed_worker_is_replaced(client, alone):
    pids = set(client.run(os.getpid).values())
    result = {}
    t = threading.Thread(
        target=lambda: result.update(df=pp5.sweep(GRID, client, progress=False))
    )
    t.start()
    # Kill a worker while it works on a point.
    killed = None
    deadline = time.monotonic() + 30
    while killed is None and time.monotonic() < deadline:
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:
            info = client.scheduler_info()["workers"]
            pid = client.run(os.getpid, workers=[busy[0]]).get(busy[0])
            if pid is not None and info:
                assert t.is_alive()  # in the middle of the sweep
                os.kill(pid, signal.SIGKILL)
                killed = pid
        time.sleep(0.02)
    assert killed in pids
    t.join(timeout=120)
    assert not t.is_alive()
    df = result["df"]
    assert df["error"].isna().all(), list(df["error"])
    for (_, row), expected in zip(df.iterrows(), alone):
        same(row, expected)
    # The nanny started a new worker process in its place.
    client.wait_for_workers(2, timeout=30)
    assert killed not in set(client.run(os.getpid).values())


def test_board_runs(client):
    std = pp5.microcode_source("standard")
    clear = "clear_l:      r=0 w=mem[dst+i] i++ loopd clear_l\n"
    assert clear in std
    # CLEAR one cycle longer (test_microcode.py's variant).
    ones = std.replace(clear, "              next\n" + clear.replace("r=0", "r=1"))
    grid = {
        "microcode": [None, [ones, pp5.microcode_source("qee"), pp5.microcode_source("flow")]],
        "stream": ["SETENABS\nCLEAR 0 8\n", "SETENABS\nINC 8 0 8\nINC 8 0 8\n",
                   "SETENABS\nPIGC\nINDON\n"],
        "max_cycles": 1_000_000,
    }
    df = pp5.sweep_runs(grid, client, progress=False)
    assert len(df) == 6
    for i, p in enumerate(pp5.sweep.points(grid)):
        board = pp5.Board(p["microcode"])
        if "PIGC" in p["stream"]:
            assert df["error"][i].startswith("Deadlock: deadlock")
            assert df["stop"][i] == "deadlock"
            continue
        out = board.run(p["stream"], max_cycles=1_000_000)
        assert df["error"][i] is None or pd.isna(df["error"][i])
        assert df["cycles"][i] == out.cycles and df["ok"][i] == out.ok
        assert df["boot_cycles"][i] == board.boot_cycles
        assert df["command_cycles"][i] == sum(c for _, c in out.command_cycles)


def test_parquet_holds_the_rows_and_a_failed_write_keeps_the_old_file(client, tmp_path,
                                                                      monkeypatch):
    pytest.importorskip("pyarrow")
    grid = {"scene": "triangle", "screen": "128x128", "renderers": [1, 2]}
    out = tmp_path / "s.parquet"
    df = pp5.sweep(grid, client, progress=False, out=out)
    back = pd.read_parquet(out)
    pd.testing.assert_frame_equal(back, df)
    assert list(back["renderers"]) == [1, 2] and (back["frame_cycles"] > 0).all()

    # A write that fails half way (a full disk) leaves the file that was there, and nothing
    # beside it.
    def fails(self, path, *a, **k):
        pathlib.Path(path).write_bytes(b"PAR1 half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", fails)
    before = out.read_bytes()
    with pytest.raises(OSError, match="No space left"):
        pp5.sweep(grid, client, progress=False, out=out)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.parquet"]


# A stand-in for Slurm's sbatch and scancel, enough for dask_jobqueue: sbatch starts the job
# script with bash in a session of its own and prints its job number; scancel kills that
# session. (No Slurm here: this runs SLURMCluster's own job script, worker command and
# scheduler connection, not a Slurm controller's queueing.)
SBATCH = """#!{python}
import os, subprocess, sys
jobs = os.environ["FAKE_SLURM_JOBS"]
n = len(os.listdir(jobs)) + 1
log = open(os.path.join(jobs, f"{{n}}.log"), "w")
p = subprocess.Popen(["bash", sys.argv[-1]], stdout=log, stderr=log, start_new_session=True)
open(os.path.join(jobs, str(n)), "w").write(str(p.pid))
print(f"Submitted batch job {{n}}")
"""
SCANCEL = """#!{python}
import os, signal, sys
jobs = os.environ["FAKE_SLURM_JOBS"]
for n in sys.argv[1:]:
    try:
        os.killpg(int(open(os.path.join(jobs, n)).read()), signal.SIGTERM)
    except (OSError, ValueError):
        pass
"""


def test_a_slurm_cluster_through_dask_jobqueue(alone, tmp_path, monkeypatch):
    # dask-jobqueue 0.9.0 replaces the process's Ctrl-C handler with one that exits when it is
    # imported (dask/dask-jobqueue#696, fixed after 0.9.0 by #697): put Python's back, or
    # later tests of KeyboardInterrupt see SystemExit.
    handler = signal.getsignal(signal.SIGINT)
    try:
        jobqueue = pytest.importorskip("dask_jobqueue")
    finally:
        signal.signal(signal.SIGINT, handler)
    bin_dir, jobs = tmp_path / "bin", tmp_path / "jobs"
    bin_dir.mkdir()
    jobs.mkdir()
    for name, text in (("sbatch", SBATCH), ("scancel", SCANCEL)):
        f = bin_dir / name
        f.write_text(text.format(python=sys.executable))
        f.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM_JOBS", str(jobs))
    # docs/sweeps.md's recipe, on this machine.
    cluster = jobqueue.SLURMCluster(
        queue="normal", account="myproject", cores=1, processes=1, memory="2GB",
        walltime="00:10:00", python=sys.executable,
        job_script_prologue=["export RAYON_NUM_THREADS=1"],
        scheduler_options={"dashboard_address": ":0"},
    )
    try:
        script = cluster.job_script()
        assert "#SBATCH -p normal" in script and "#SBATCH -A myproject" in script, script
        assert "export RAYON_NUM_THREADS=1" in script
        cluster.scale(jobs=2)
        # scale() submits from the cluster's event loop: wait for both submissions, or a
        # fast sweep can end on the first job before the second sbatch has run.
        deadline = time.monotonic() + 60
        while len(list(jobs.glob("*.log"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(list(jobs.glob("*.log"))) == 2, "two jobs submitted"
        df = pp5.sweep(GRID, cluster, progress=False)
        assert len(list(jobs.glob("*.log"))) == 2, "two jobs submitted, no more"
        assert df["error"].isna().all(), list(df["error"])
        for (_, row), expected in zip(df.iterrows(), alone):
            same(row, expected)
    finally:
        cluster.close()


def test_a_local_cluster_of_its_own(tmp_path):
    df = pp5.sweep({"scene": "triangle", "screen": "128x128", "renderers": [1, 2]},
                   workers=2, progress=False)
    assert df["error"].isna().all() and (df["frame_cycles"] > 0).all()


def test_the_toml_entry_point(client, alone, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'out = "{tmp_path / "out.csv"}"\n'
        f'scheduler = "{client.scheduler.address}"\n'
        "[grid]\n"
        f'scene = ["{GRID["scene"][1]}"]\n'
        'screen = "256x128"\n'
        "renderers = 2\n"
        "gps = [0, 4, 16]\n"
        "ring_channels = [1, 4]\n"
    )
    r = subprocess.run([sys.executable, "-m", "pp5.sweep", str(spec)], capture_output=True,
                       text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "6 points, 0 failed" in r.stdout
    assert "pp5.sweep: 6/6 points" in r.stderr
    df = pd.read_csv(tmp_path / "out.csv")
    assert list(df["frame_cycles"]) == [a["frame_cycles"] for a in alone[6:]]
    assert list(df["bound"]) == [a["bound"] for a in alone[6:]]
    # A spec without a grid is refused with a message.
    bad = tmp_path / "bad.toml"
    bad.write_text('out = "x.csv"\n')
    r = subprocess.run([sys.executable, "-m", "pp5.sweep", str(bad)], capture_output=True,
                       text=True, cwd=tmp_path)
    assert r.returncode == 2 and "[grid]" in r.stderr
