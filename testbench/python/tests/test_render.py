"""pp5.render: the study of `pp5 render`, by the same library function
(pp5_sim::render::run): the same report in every format as the CLI for the same options, the
same picture, the same files; bad options raise."""

import _thread
import json
import subprocess
import threading
import time

import numpy as np
import pytest

import pp5

# Small studies (a fraction of a second each): full system, bounded GPs and Ring, the
# Renderers alone, the other policy and view options.
CASES = [
    ({"scene": "random:n=40,size=0.1", "screen": "256x128", "renderers": 2}, []),
    (
        {"scene": "random:n=60,size=0.08,seed=3", "screen": (300, 200), "renderers": 3,
         "policy": "next-free", "gps": 4, "gp_mops": 8.0, "ring_channels": 2},
        ["--policy", "next-free", "--gps", "4", "--gp-mops", "8", "--ring-channels", "2"],
    ),
    (
        {"scene": "torus:seg=12,sides=6", "screen": "200x150", "renderers": 4,
         "renderers_only": True, "light": (0.1, 0.9, 0.4), "shininess": 8, "fov": 30.0},
        ["--renderers-only", "--light", "0.1,0.9,0.4", "--shininess", "8", "--fov", "30"],
    ),
]


def cli_args(opts, extra):
    screen = opts["screen"] if isinstance(opts["screen"], str) else "%dx%d" % opts["screen"]
    return ["--scene", opts["scene"], "--screen", screen, "--renderers", str(opts["renderers"]), *extra]


def run_cli(pp5_cli, args, report, png):
    r = subprocess.run(
        [str(pp5_cli), "render", *args, "--report", report, "-o", str(png)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("opts,extra", CASES)
def test_same_report_as_the_cli(pp5_cli, tmp_path, opts, extra):
    r = pp5.render(**opts, output=tmp_path / "py.png")
    args = cli_args(opts, extra)
    out = run_cli(pp5_cli, args, "json", tmp_path / "cli.png")
    assert json.loads(out) == r.as_dict()
    assert out == r.report("json")
    assert run_cli(pp5_cli, args, "table", tmp_path / "cli.png") == r.report("table")
    assert run_cli(pp5_cli, args, "csv", tmp_path / "cli.png") == r.report("csv")
    assert (tmp_path / "py.png").read_bytes() == (tmp_path / "cli.png").read_bytes()


def test_figures_as_attributes():
    r = pp5.render("random:n=40,size=0.1", screen="256x128", renderers=2, threads=1)
    d = r.as_dict()
    assert r.frame_cycles == d["frame_cycles"] > 0
    assert r.frame_us == pytest.approx(r.frame_cycles / 40)
    assert r.prims_per_sec == d["prims_per_sec"]
    assert r.stages == d["stage_cycles"]
    assert r.gp["triangles"] == 40
    assert [row["system"] for row in r.system_rows][0] == "full system"
    assert r.bound in ("GPs", "Ring", "Renderers", "none")
    assert r.verdict == d["system"]["verdict"]
    assert len(r.gp_util) == 32 and len(r.ring_util) == 8 and len(r.renderer_util) == 2
    assert r.hardware_errors == []
    pic = r.picture
    assert pic.shape == (128, 256, 3) and pic.dtype == np.uint8
    assert (pic != pic[0, 0]).any()  # something was drawn on the background
    # A fresh dict each time, and the same figures on any number of threads.
    d["frame_cycles"] = 0
    assert r.as_dict()["frame_cycles"] == r.frame_cycles
    r2 = pp5.render("random:n=40,size=0.1", screen="256x128", renderers=2)
    assert r2.as_dict() == r.as_dict()
    assert np.array_equal(r2.picture, pic)


def test_renderers_only_has_no_system():
    r = pp5.render("triangle", screen="128x128", renderers=1, renderers_only=True)
    assert r.system_rows is None and r.bound is None and r.gp_util is None
    assert "system" not in r.as_dict()


def test_outputs_as_the_cli(tmp_path):
    r = pp5.render(
        "random:n=20,size=0.2", screen="256x128", renderers=2, save_streams=tmp_path / "s",
        timeline=tmp_path / "t.svg", system_wave=tmp_path / "sys.vcd",
        wave=tmp_path / "r.vcd", region=(1, 0),
    )
    assert (tmp_path / "s" / "render.pp5uc").exists()
    assert (tmp_path / "s" / "renderer-1.pp5s").exists()
    assert (tmp_path / "t.svg").read_text().lstrip().startswith("<")
    assert (tmp_path / "sys.vcd").exists() and (tmp_path / "sys.gtkw").exists()
    assert (tmp_path / "r.vcd").exists() and (tmp_path / "r.gtkw").exists()
    assert any(n.startswith("streams: ") for n in r.notes)
    # A saved stream runs on a board as `pp5 run` runs it.
    board = pp5.Board(tmp_path / "s" / "render.pp5uc")
    assert board.run(tmp_path / "s" / "renderer-1.pp5s").ok


@pytest.mark.parametrize(
    "kwargs,error,text",
    [
        ({"renderers": 0}, ValueError, "1..=16 Renderers"),
        ({"gps": 33}, ValueError, "0..=32"),
        ({"gp_mops": 0.5}, ValueError, "1..=10000"),
        ({"ring_channels": 65}, ValueError, "0..=64"),
        ({"scene": "nonesuch"}, ValueError, "nonesuch"),
        ({"policy": "fastest"}, ValueError, "round-robin"),
        ({"screen": "0x10"}, ValueError, "screen"),
        ({"ambient": 2.0}, ValueError, "ambient"),
        ({"shininess": 3}, ValueError, "shininess"),
        ({"wave": "x.vcd"}, ValueError, "region"),
        ({"renderers_only": True, "timeline": "t.svg"}, ValueError, "renderers_only"),
        ({"scene": "triangle", "obj": "x.obj"}, ValueError, "not both"),
        ({"obj": "/nonexistent/x.obj"}, OSError, "x.obj"),
        ({"eye": "1,2"}, ValueError, "eye"),
        ({"eye": [1, 2, 3, 4]}, TypeError, "eye"),
        ({"colour": "red"}, TypeError, "colour"),
    ],
)
def test_bad_options_raise(kwargs, error, text):
    kwargs = {"scene": "triangle", "screen": "128x128", "renderers": 1, **kwargs}
    if "obj" in kwargs and kwargs.get("scene") == "triangle" and "not both" not in text:
        del kwargs["scene"]
    with pytest.raises(error, match=text):
        pp5.render(**kwargs)


def test_ctrl_c_abandons_the_frame(tmp_path):
    """KeyboardInterrupt while the frame is simulated: raised within 50 ms, no file written
    (the abandoned frame's thread writes nothing when it ends)."""
    timer = threading.Timer(0.1, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        pp5.render("spheres", screen="640x512", renderers_only=True, threads=1,
                   output=tmp_path / "x.png")
    assert time.monotonic() - started < 1.0
    assert not (tmp_path / "x.png").exists()
