#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables of bench/upgrade.sh's raw.tsv: a live upgrade's blackout and a
switch's duration, per vCPU count and number of attached tasks.

raw.tsv lines: KIND CPUS TASKS ROUND NS SWAP, KIND "upgrade" (NS: the time
the kernel kept every CPU stopped; SWAP: the part the swap's own work took)
or "switch" (NS: guest time of one 'saakm switch' of every task; SWAP "-").
"""
import statistics
import sys
from collections import defaultdict


def pct(vals, q):
    """Nearest-rank percentile of a non-empty list."""
    s = sorted(vals)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def main(path):
    rows = defaultdict(list)
    swaps = defaultdict(list)
    with open(path) as f:
        for line in f:
            kind, cpus, tasks, _, ns, swap = line.split()
            rows[(kind, int(cpus), int(tasks))].append(int(ns))
            if swap != "-":
                swaps[(kind, int(cpus), int(tasks))].append(int(swap))
    print("### Live upgrade: blackout (every CPU stopped), microseconds\n")
    print("| vCPUs | tasks | upgrades | median | p90 | max | swap's own work, median |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for key, v in sorted(rows.items()):
        kind, cpus, tasks = key
        if kind == "upgrade":
            us = [x / 1000 for x in v]
            sw = statistics.median(swaps[key]) / 1000
            print(f"| {cpus} | {tasks} | {len(us)} | {statistics.median(us):.1f} "
                  f"| {pct(us, 0.9):.1f} | {max(us):.1f} | {sw:.1f} |")
    print("\n### Switch of every task to another policy, milliseconds\n")
    print("| vCPUs | tasks | switches | median | per task (us) |")
    print("|---:|---:|---:|---:|---:|")
    for (kind, cpus, tasks), v in sorted(rows.items()):
        if kind == "switch":
            ms = statistics.median(v) / 1e6
            print(f"| {cpus} | {tasks} | {len(v)} | {ms:.1f} | {ms * 1000 / tasks:.1f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: upgrade.py RAW.tsv")
    main(sys.argv[1])
