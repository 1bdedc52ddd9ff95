#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel instructions per operation against the vCPU count (bench/cpus.sh).

usage: bench/cpus.py OUT [--cpus "2 4 8 16"] [--top N]

OUT/n<N>/ is the kprof guest of N vCPUs: ops.tsv (window, config,
workload, operations: round trips or context switches, from the guest) and
kprof.json (bench/kprof.py --json). Prints a table of instructions per
operation, one row per workload and configuration, one column per vCPU
count (--cpus: those, "-" for a guest that gave nothing; default: the
guests in OUT) and the change from the fewest vCPUs to the most; then,
the same for the scheduling class's own functions only (the functions
defined in its source files, and its policy module's or BPF program's),
which is where a walk over CPUs on a hot path would show; then, for SaaKM
fifo, the N functions whose instructions per operation grew most between
those two. Writes the same to OUT/results.md, and OUT/results.json.
"""
import argparse
import csv
import functools
import glob
import json
import os
import re

CONFIGS = {"eevdf": "EEVDF", "saakm-fifo": "SaaKM fifo", "ext-fifo": "ext_fifo"}
WORKLOADS = {"pingpong": "ping-pong on CPU 0, per round trip",
             "hackbench": "hackbench -g 2, per context switch"}
GROWTH_CONFIG = "saakm-fifo"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KDIR = os.environ.get("KDIR", os.path.join(ROOT, "build", "linux"))
# Each configuration's class: its source files, and what else runs its policy.
CLASS_SOURCES = {"eevdf": [os.path.join(KDIR, "kernel/sched/fair.c")],
                 "saakm-fifo": glob.glob(os.path.join(ROOT, "kernel/src/kernel/sched/saakm/*.c")),
                 "ext-fifo": [os.path.join(KDIR, "kernel/sched/ext.c")]}
CLASS_EXTRA = {"eevdf": (), "saakm-fifo": ("[saakm_fifo]",), "ext-fifo": ("bpf_prog_",)}


def defined_functions(paths):
    """The names of the functions defined in these C files (a definition's
    first line starts in column 0 and its body's brace follows)."""
    names = set()
    for path in paths:
        lines = open(path).read().split("\n")
        for i, line in enumerate(lines[:-1]):
            m = re.match(r"[A-Za-z].*?\b([a-z_][a-z0-9_]*)\(", line)
            if m and not line.rstrip().endswith(";") and \
                    (lines[i + 1].startswith("{") or line.rstrip().endswith("{")):
                names.add(m[1])
    return names


@functools.lru_cache(maxsize=None)
def class_functions(cfg):
    return defined_functions(CLASS_SOURCES[cfg])


def class_share(cfg, functions):
    """Instructions per operation in @cfg's own class: a symbol's name is
    matched without its compiler suffix (.constprop.0, .isra.0)."""
    names = class_functions(cfg)
    return sum(k for f, k in functions.items()
               if f.split(".")[0] in names or any(x in f for x in CLASS_EXTRA[cfg]))


def load(out):
    """{ncpus: {(workload, config): {"ops", "total", "functions"}}}: per operation."""
    runs = {}
    for d in glob.glob(os.path.join(out, "n*")):
        m = re.fullmatch(r"n(\d+)", os.path.basename(d))
        if not m or not os.path.exists(os.path.join(d, "kprof.json")):
            continue
        prof = json.load(open(os.path.join(d, "kprof.json")))
        runs[int(m[1])] = cur = {}
        for r in csv.DictReader(open(os.path.join(d, "ops.tsv")), delimiter="\t"):
            ops, w = int(r["ops"]), prof[r["window"]]
            cur[(r["workload"], r["config"])] = {
                "window": r["window"], "ops": ops, "total": w["total"] / ops,
                "functions": {f: k / ops for f, k in w["functions"].items()}}
    return runs


def pct(a, b):
    return 100 * (b - a) / a if a else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--cpus", help="the vCPU counts, space-separated")
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()

    runs = load(a.out)
    if not runs:
        raise SystemExit(f"bench-cpus: no profile in {a.out}")
    cpus = sorted(int(n) for n in a.cpus.split()) if a.cpus else sorted(runs)
    for n in cpus:
        runs.setdefault(n, {})
    lo, hi = cpus[0], cpus[-1]
    md, rows, growth = [], [], {}

    md.append("Guest-kernel instructions per operation (kprof, icount), by vCPU count:\n")
    md.append("| Workload | Config | " + " | ".join(f"{n} vCPUs" for n in cpus) + f" | {hi} vs {lo} |")
    md.append("|---|---|" + "---|" * (len(cpus) + 1))
    for wl, wl_label in WORKLOADS.items():
        for cfg, cfg_label in CONFIGS.items():
            per_op = {n: runs[n][(wl, cfg)]["total"] for n in cpus if (wl, cfg) in runs[n]}
            change = pct(per_op[lo], per_op[hi]) if lo in per_op and hi in per_op and lo != hi else None
            rows.append({"workload": wl, "config": cfg, "per_op": per_op, "change_pct": change,
                         "ops": {n: runs[n][(wl, cfg)]["ops"] for n in per_op}})
            md.append(f"| {wl_label} | {cfg_label} | "
                      + " | ".join(f"{per_op[n]:,.0f}" if n in per_op else "-" for n in cpus)
                      + f" | {'-' if change is None else f'{change:+.1f}%'} |")
    md.append("\nThe same, in the class's own functions only (its source files, and its"
              " policy module or BPF program):\n")
    md.append("| Workload | Config | " + " | ".join(f"{n} vCPUs" for n in cpus) + f" | {hi} vs {lo} |")
    md.append("|---|---|" + "---|" * (len(cpus) + 1))
    for r in rows:
        wl, cfg = r["workload"], r["config"]
        own = {n: class_share(cfg, runs[n][(wl, cfg)]["functions"]) for n in r["per_op"]}
        change = pct(own[lo], own[hi]) if lo in own and hi in own and lo != hi else None
        r["class_per_op"], r["class_change_pct"] = own, change
        md.append(f"| {WORKLOADS[wl]} | {CONFIGS[cfg]} | "
                  + " | ".join(f"{own[n]:,.0f}" if n in own else "-" for n in cpus)
                  + f" | {'-' if change is None else f'{change:+.1f}%'} |")
    md.append("\nContext switches in the hackbench windows:\n")
    md.append("| Config | " + " | ".join(f"{n} vCPUs" for n in cpus) + " |")
    md.append("|---|" + "---|" * len(cpus))
    for r in rows:
        if r["workload"] == "hackbench":
            md.append(f"| {CONFIGS[r['config']]} | "
                      + " | ".join(f"{r['ops'][n]:,}" if n in r["ops"] else "-" for n in cpus) + " |")

    for wl in WORKLOADS:
        key = (wl, GROWTH_CONFIG)
        if lo == hi or key not in runs[lo] or key not in runs[hi]:
            continue
        f0, f1 = runs[lo][key]["functions"], runs[hi][key]["functions"]
        d = sorted(((f1.get(f, 0) - f0.get(f, 0), f) for f in set(f0) | set(f1)), reverse=True)
        growth[wl] = [{"function": f, "from": f0.get(f, 0), "to": f1.get(f, 0), "growth": g}
                      for g, f in d[:a.top] if g > 0]
        md.append(f"\n{CONFIGS[GROWTH_CONFIG]}, {WORKLOADS[wl]}: the {a.top} functions that grew most"
                  f" from {lo} to {hi} vCPUs (total {runs[lo][key]['total']:,.0f} ->"
                  f" {runs[hi][key]['total']:,.0f}):\n")
        md.append(f"| Function | {lo} vCPUs | {hi} vCPUs | Growth |")
        md.append("|---|---|---|---|")
        for r in growth[wl]:
            md.append(f"| `{r['function']}` | {r['from']:,.1f} | {r['to']:,.1f} | {r['growth']:+,.1f} |")

    text = "\n".join(md) + "\n"
    print(text, end="")
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"cpus": cpus, "unit": "guest-kernel instructions per operation",
                   "rows": rows, "growth": {"config": GROWTH_CONFIG, "from": lo, "to": hi,
                                            "functions": growth}}, f, indent=1)


if __name__ == "__main__":
    main()
