"""The worked sweep of docs/sweeps.md: frame time against the number of Graphics Processors
and the Ring's channels, for two scenes, on a LocalCluster of this machine; the table as CSV
and a plot as PNG (matplotlib).

    .venv/bin/python testbench/python/examples/sweep_frame_time.py [--out-dir docs/images]
"""

import argparse
import pathlib

import pp5

GRID = {
    "scene": ["spheres", "terrain:n=32"],
    "screen": "640x512",
    "gps": [2, 4, 8, 16, 32],
    "ring_channels": [1, 2, 4, 8],
}


def plot(df, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenes = list(dict.fromkeys(df["scene"]))
    fig, axes = plt.subplots(1, len(scenes), figsize=(5 * len(scenes), 4), sharey=False)
    for ax, scene in zip(axes, scenes):
        s = df[df["scene"] == scene]
        for ch in sorted(set(s["ring_channels"])):
            c = s[s["ring_channels"] == ch].sort_values("gps")
            ax.plot(c["gps"], c["frame_us"] / 1000, marker="o", label=f"{ch} Ring channel(s)")
        alone = s["cycles_renderers_alone"].iloc[0] / 40_000
        ax.axhline(alone, color="grey", linestyle="--", label="Renderers alone")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(set(s["gps"])), [str(g) for g in sorted(set(s["gps"]))])
        ax.set_xlabel("Graphics Processors (16 M operations/s each)")
        ax.set_ylabel("frame time, ms")
        ax.set_title(f"{scene}, 640x512, 16 Renderers")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", default="docs/images")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler (default: this machine)")
    a = ap.parse_args()
    out = pathlib.Path(a.out_dir)
    df = pp5.sweep(GRID, a.scheduler, out=out / "sweep-frame-time.csv")
    assert df["error"].isna().all(), df[df["error"].notna()]
    plot(df, out / "sweep-frame-time.png")
    cols = ["scene", "gps", "ring_channels", "frame_cycles", "frame_us", "bound", "seconds"]
    print(df[cols].to_string(index=False))
    print(f"points: {len(df)}, seconds per point: mean {df['seconds'].mean():.1f}, "
          f"max {df['seconds'].max():.1f}")


if __name__ == "__main__":
    main()
