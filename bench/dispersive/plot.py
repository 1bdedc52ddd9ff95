#!/usr/bin/env python3
"""Report of the dispersive-load study (bench/dispersive): tables and a plot.

    plot.py OUTDIR        (bench/report.py calls study() itself)

OUTDIR is a bench/run.sh results directory with a dispersive/ guest
directory: runs.tsv and raw/dispersive.<config>.<rep>.out, whose
"dispersive: point load=.. key=value ..." lines are one load point each.
Only runs the runner marked valid (every task in the configuration's class,
exit status 0) are used. For every configuration and load point the mean
over the repetitions is given with its 95% interval (bench/report.py's
statistics). Writes OUTDIR/dispersive.md and OUTDIR/dispersive.png and
returns the rows and the issue's goals.
"""
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import report  # noqa: E402  (bench/report.py: stats, cell, fmt, config labels)

POINT = re.compile(r"^dispersive: point (.*)$", re.M)
CALIB = re.compile(r"^dispersive: calib (.*)$", re.M)
# columns of the detailed table: (key, heading)
DETAIL = [("achieved_rps", "achieved req/s"), ("short_p50_us", "short p50 µs"),
          ("short_p99_us", "short p99 µs"), ("short_p999_us", "short p99.9 µs"),
          ("short_ho_p99_us", "short p99 from hand-over µs"),
          ("short_bl_frac", "shorts finding no idle worker"),
          ("short_wait_p99_us", "short p99 wait for a worker µs"),
          ("long_p50_us", "long p50 µs"), ("long_p99_us", "long p99 µs"),
          ("long_rps", "long req/s"), ("nivcsw", "involuntary switches"),
          ("late_p50_us", "generator late p50 µs"), ("late_max_us", "generator late max µs")]
SLO_US = 200.0          # the "short-request p99 <= 200 us"
TARGET_LOAD = 0.7       # the "at 70% load"


def kv(s):
    d = {}
    for f in s.split():
        if "=" in f:
            k, v = f.split("=", 1)
            try:
                d[k] = float(v)
            except ValueError:
                pass
    return d


# sched_getscheduler() the workers must have seen, by class kind
WANT_POLICY = {"eevdf": 0, "ext": 7, "saakm": 8}


def collect(gdir, runs, table):
    """-> ({config: {load: {key: [values over reps]}}}, calibration dict).
    A valid run without load points, or whose workers saw another policy
    than the configuration's class, is marked invalid here (with why)."""
    data, calib = {}, {}
    for r in runs:
        if r["workload"] != "dispersive" or not r["valid"]:
            continue
        path = os.path.join(gdir, "raw", f"dispersive.{r['config']}.{r['rep']}.out")
        text = open(path, errors="replace").read() if os.path.exists(path) else ""
        points = [kv(line) for line in POINT.findall(text)]
        want = WANT_POLICY.get(table.get(r["config"], {}).get("class", "?").split(":")[0])
        seen = {p.get("worker_policy") for p in points}
        if not points or seen != {want}:
            r["valid"] = False
            r["why"] = ("no load point in the output" if not points else
                        f"workers saw policy {sorted(seen)}, want {want}")
            continue
        m = CALIB.findall(text)
        if m:
            calib = kv(m[-1])
        for p in points:
            if "load" not in p:
                continue
            per = data.setdefault(r["config"], {}).setdefault(round(p["load"], 3), {})
            for k, v in p.items():
                if not math.isnan(v):
                    per.setdefault(k, []).append(v)
    return data, calib


def mean_of(data, cfg, load, key):
    s = report.stats(data.get(cfg, {}).get(load, {}).get(key, []))
    return s["mean"] if s else None


def max_load_within(data, cfg, key="short_p99_us", limit=SLO_US):
    """Highest load point whose mean short p99 is <= limit, with every lower
    point also within it (a sweep can recover by luck above saturation)."""
    best = 0.0
    for load in sorted(data.get(cfg, {})):
        v = mean_of(data, cfg, load, key)
        if v is None or v > limit:
            break
        best = load
    return best


def goals_of(data):
    goals = []
    if "shinjuku" in data and "eevdf" in data:
        loads = sorted(set(data["shinjuku"]) & set(data["eevdf"]),
                       key=lambda x: abs(x - TARGET_LOAD))
        if loads and abs(loads[0] - TARGET_LOAD) < 0.051:
            ld = loads[0]
            s = mean_of(data, "shinjuku", ld, "short_p99_us")
            e = mean_of(data, "eevdf", ld, "short_p99_us")
            if s is not None and e:
                goals.append((f"short-request p99 at {ld:.0%} load under shinjuku <= 0.2x EEVDF's",
                              "yes" if s / e <= 0.2 else "no",
                              f"shinjuku {report.fmt(s)} µs vs EEVDF {report.fmt(e)} µs: "
                              f"{s / e:.3f}x (ratio of the means)"))
        ms, me = max_load_within(data, "shinjuku"), max_load_within(data, "eevdf")
        ratio = ms / me if me else float("inf") if ms else float("nan")
        goals.append((f"highest load with short p99 <= {SLO_US:.0f} µs: shinjuku >= 1.3x EEVDF's",
                      "yes" if ratio >= 1.3 else "no" if not math.isnan(ratio) else "inconclusive",
                      f"shinjuku {ms:.0%}, EEVDF {me:.0%} of capacity (ratio {ratio:.2f}; "
                      "load points of the sweep, means over repetitions)"))
    return goals


def tables(data, labels, calib):
    cfgs = list(data)
    loads = sorted({ld for c in cfgs for ld in data[c]})
    md = ["## Dispersive load (ghOSt/Shinjuku experiment)\n",
          "Open-loop requests with exponential inter-arrival times, 99.5% short (10 µs of "
          "work) and 0.5% long (5 ms), to a server with 32 worker threads per CPU "
          "(`bench/dispersive`); latency from the scheduled arrival to completion. Offered "
          "load in fractions of capacity = effective CPUs / mean service time "
          f"(calibrated once per guest: {', '.join(f'{k}={v:g}' for k, v in calib.items())}). "
          "Mean ± 95% interval over the valid repetitions.\n",
          "### Short-request p99 latency (µs) vs. offered load\n",
          "| load | " + " | ".join(labels.get(c, c) for c in cfgs) + " |",
          "|---|" + "---|" * len(cfgs)]
    for ld in loads:
        md.append(f"| {ld:.0%} | " + " | ".join(
            report.cell(report.stats(data[c].get(ld, {}).get("short_p99_us", [])))
            for c in cfgs) + " |")
    md.append("")
    md.append("### Every figure\n")
    md.append("| configuration | load | " + " | ".join(h for _, h in DETAIL) + " |")
    md.append("|---|---|" + "---|" * len(DETAIL))
    for c in cfgs:
        for ld in sorted(data[c]):
            md.append(f"| {labels.get(c, c)} | {ld:.0%} | " + " | ".join(
                report.cell(report.stats(data[c][ld].get(k, []))) for k, _ in DETAIL) + " |")
    md.append("")
    return md


def chart(data, labels, path, host):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("short_p99_us", "short-request p99 (µs, log)", True),
              ("long_p99_us", "long-request p99 (µs, log)", True),
              ("achieved_rps", "achieved throughput (req/s)", False)]
    fig, axes = plt.subplots(1, len(panels), figsize=(15, 4.6))
    for ax, (key, title, log) in zip(axes, panels):
        for c in data:
            xs, ys, es = [], [], []
            for ld in sorted(data[c]):
                s = report.stats(data[c][ld].get(key, []))
                if not s:
                    continue
                xs.append(ld * 100)
                ys.append(s["mean"])
                es.append(0 if math.isnan(s["ci95"]) else min(s["ci95"], s["mean"] * 0.95))
            if xs:
                ax.errorbar(xs, ys, yerr=es, marker="o", markersize=3, capsize=2,
                            label=labels.get(c, c))
        if key == "short_p99_us":
            ax.axhline(SLO_US, color="black", linewidth=0.6, linestyle="--")
        if log:
            ax.set_yscale("log")
        ax.set_xlabel("offered load (% of capacity)")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", linewidth=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Dispersive load: 99.5% 10 µs / 0.5% 5 ms requests, "
                 f"{host.get('mode', '?')} mode, {host.get('cpus', '?')} vCPUs, "
                 "mean ± 95% CI", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def study(out, runs, host):
    """-> (markdown lines, goals [(text, met, figures)], json-able result)"""
    gdir = os.path.join(out, "dispersive")
    table = report.config_table(out)
    data, calib = collect(gdir, runs, table)
    labels = {c: t["label"] for c, t in table.items()}
    if not data:
        return (["## Dispersive load\n", "No valid run.\n"], [], {"calibration": calib})
    md = tables(data, labels, calib)
    goals = goals_of(data)
    try:
        chart(data, labels, os.path.join(out, "dispersive.png"), host)
        md.append("![p99 latency vs. offered load](dispersive.png)\n")
    except Exception as e:  # the table matters more than the picture
        print(f"dispersive: no chart: {e}", file=sys.stderr)
    with open(os.path.join(out, "dispersive.md"), "w") as f:
        f.write("\n".join(md))
    res = {"calibration": calib,
           "points": {c: {str(ld): {k: report.stats(v) for k, v in per.items()}
                          for ld, per in data[c].items()} for c in data}}
    return md, goals, res


def main():
    out = sys.argv[1]
    _, runs, _ = report.load_guest(os.path.join(out, "dispersive"))
    md, goals, _ = study(out, runs, report.read_kv(os.path.join(out, "host.txt")))
    print("\n".join(md))
    for g in goals:
        print(" | ".join(g))


if __name__ == "__main__":
    main()
