"""Charts of a `scripts/bench` output folder (docs/benchmarks.md).

For every `<run>-percentiles.csv`: one latency-percentile chart with all runs (log axis of
1/(1-p), the HdrHistogram way: the tail gets the width it deserves). For every
`<run>-latency.csv`: latency over time in 10 ms bins (p50, p99, max of the samples sent in the
bin), with the CPU of server, Redis and generator and the vCPUs' steal from `<run>-cpu.csv` on a
second axis, and Redis's AOF rewrites (from the folder's `redis.log`, placed by the run's
`window_start_unix_ms` in `<run>.json`) shaded: a forked child that competes for the same cores.
"""
import csv
import datetime
import json
import math
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def percentile_chart(folder: pathlib.Path) -> pathlib.Path | None:
    files = sorted(folder.glob("*-percentiles.csv"))
    if not files:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for path in files:
        rows = [r for r in read(path) if float(r["percentile"]) < 100]
        if not rows:
            continue
        xs = [1 / (1 - float(r["percentile"]) / 100) for r in rows]
        ys = [float(r["latency_us"]) / 1000 for r in rows]
        ax.plot(xs, ys, label=path.name.removesuffix("-percentiles.csv"))
    ax.set_xscale("log")
    ticks = [1, 2, 10, 100, 1000, 10000, 100000]
    ax.set_xticks(ticks)
    ax.set_xticklabels(["0", "50", "90", "99", "99.9", "99.99", "99.999"])
    ax.set_xlabel("percentile")
    ax.set_ylabel("send → message_accepted (ms)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title("Latency by percentile")
    out = folder / "latency-percentiles.png"
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def bins(rows, width_ms=10.0):
    grouped = {}
    for r in rows:
        b = int(float(r["sent_ms"]) // width_ms)
        grouped.setdefault(b, []).append(float(r["latency_us"]) / 1000)
    out = []
    for b in sorted(grouped):
        values = sorted(grouped[b])
        n = len(values)
        out.append((b * width_ms / 1000, values[n // 2], values[min(n - 1, math.ceil(0.99 * n) - 1)], values[-1]))
    return out


# 5703:M 24 Nov 2026 06:13:50.123 * Background append only file rewriting started by pid 6000
REDIS_LINE = re.compile(r"^\d+:[A-Z] (\d+ \w+ \d+ \d+:\d+:\d+\.\d+) [*#.-] (.*)$")


def aof_rewrites(folder: pathlib.Path):
    """(start, end) Unix seconds of every AOF rewrite in the folder's redis.log (end None: unfinished)."""
    path = folder / "redis.log"
    if not path.exists():
        return []
    spans, start = [], None
    for line in path.read_text(errors="replace").splitlines():
        m = REDIS_LINE.match(line)
        if not m:
            continue
        # Redis writes local time; naive datetimes are read as local time too (same machine).
        at = datetime.datetime.strptime(m.group(1), "%d %b %Y %H:%M:%S.%f").timestamp()
        text = m.group(2)
        if text.startswith("Background append only file rewriting started"):
            start = at
        elif start is not None and text.startswith("Background AOF rewrite finished"):
            spans.append((start, at))
            start = None
    if start is not None:
        spans.append((start, None))
    return spans


def window_start(latency_path: pathlib.Path, run: str):
    """The run's window start (Unix seconds) from the last JSON line of `<run>.json`, if any."""
    path = latency_path.with_name(run + ".json")
    try:
        lines = [line for line in path.read_text().splitlines() if line.startswith("{")]
        return json.loads(lines[-1])["window_start_unix_ms"] / 1000
    except (OSError, IndexError, KeyError, TypeError, ValueError):
        return None


def smooth(values, width=10):
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= width:
            total -= values[i - width]
        out.append(total / min(i + 1, width))
    return out


def timeline_chart(latency_path: pathlib.Path) -> pathlib.Path:
    run = latency_path.name.removesuffix("-latency.csv")
    rows = bins(read(latency_path))
    fig, ax = plt.subplots(figsize=(11, 4.5))
    if rows:
        t = [r[0] for r in rows]
        ax.plot(t, [r[3] for r in rows], lw=0.6, color="tab:red", label="max")
        ax.plot(t, [r[2] for r in rows], lw=0.6, color="tab:orange", label="p99")
        ax.plot(t, [r[1] for r in rows], lw=0.6, color="tab:blue", label="p50")
    origin = window_start(latency_path, run)
    if origin is not None and rows:
        end = rows[-1][0] + 0.01
        labelled = False
        for a, b in aof_rewrites(latency_path.parent):
            a, b = a - origin, (end if b is None else b - origin)
            if b >= 0 and a <= end:
                ax.axvspan(max(a, 0), min(b, end), color="gold", alpha=0.35, lw=0,
                           label=None if labelled else "Redis AOF rewrite")
                labelled = True
    ax.set_yscale("log")
    ax.set_xlabel("time in the measured window (s); 10 ms bins by send time")
    ax.set_ylabel("send → message_accepted (ms)")
    ax.grid(True, which="both", alpha=0.3)
    cpu_path = latency_path.with_name(run + "-cpu.csv")
    if cpu_path.exists():
        cpu = read(cpu_path)
        ax2 = ax.twinx()
        t_cpu = [float(r["t_ms"]) / 1000 for r in cpu]
        # A Redis Cluster's primaries (redis1_cores, redis2_cores, …) are drawn as their sum.
        shards = [key for key in (cpu[0] if cpu else {}) if re.fullmatch(r"redis\d+_cores", key)]
        for row in cpu if shards else []:
            row["redis_cores"] = str(sum(float(row[key]) for key in shards))
        for name, color in (("server", "tab:green"), ("redis", "tab:purple"), ("bench", "tab:gray")):
            key = name + "_cores"
            if cpu and key in cpu[0]:
                ax2.plot(t_cpu, [float(r[key]) for r in cpu], lw=0.5, color=color, alpha=0.6, label=f"{name} cores")
        if cpu and "steal_cores" in cpu[0]:
            # /proc/stat counts in 10 ms ticks: a 100 ms moving average keeps the line readable.
            ax2.plot(t_cpu, smooth([float(r["steal_cores"]) for r in cpu]), lw=0.8, color="black", alpha=0.7,
                     label="steal (100 ms avg)")
        ax2.set_ylabel("cores busy (10 ms samples)")
        ax2.set_ylim(0, 2.5)
        lines, labels = ax.get_legend_handles_labels()
        lines2, labels2 = ax2.get_legend_handles_labels()
        ax.legend(lines + lines2, labels + labels2, loc="upper left", ncol=3, fontsize=8)
    else:
        ax.legend(loc="upper left")
    ax.set_title(f"{run}: latency over time")
    out = latency_path.with_name(run + "-timeline.png")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: bench_plot.py FOLDER", file=sys.stderr)
        return 2
    folder = pathlib.Path(argv[1])
    written = []
    chart = percentile_chart(folder)
    if chart:
        written.append(chart)
    for path in sorted(folder.glob("*-latency.csv")):
        written.append(timeline_chart(path))
    for path in written:
        print(path)
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
