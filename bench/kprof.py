#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per function in each window of a kprof.sh profile.

usage: bench/kprof.py OUT [--per ROUNDS] [--top N] [--windows A,B,...] [--json FILE]

Each window's counts are divided by ROUNDS (say, the round trips the
window ran), and the functions are listed by the largest difference
between two windows: what one configuration runs that another does not.
--json FILE writes instead, for each window, its total and the count of
every function, divided by ROUNDS too (bench/cpus.py reads them).
"""
import argparse
import bisect
import collections
import json
import os


def symbols(out):
    """(address, name) of every text symbol: System.map and the modules."""
    syms = []
    for path in ("System.map", "kallsyms-modules"):
        path = os.path.join(out, path)
        if not os.path.exists(path):
            continue
        for line in open(path):
            f = line.split()
            if len(f) >= 3 and f[1] in "tTwW":
                syms.append((int(f[0], 16), f[2] + (f[3] if len(f) > 3 else "")))
    syms.sort()
    return syms


def records(out):
    """The counts of each MARK record, in order (the EXIT one is left out)."""
    recs, cur = [], None
    for line in open(os.path.join(out, "kprof.out")):
        if line.startswith(("MARK", "EXIT")):
            cur = collections.Counter() if line.startswith("MARK") else None
            if cur is not None:
                recs.append(cur)
            continue
        if cur is not None:
            vaddr, count = line.split()
            cur[int(vaddr, 16)] += int(count)
    return recs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--per", type=float, default=1.0, help="divide counts by this")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--windows", help="comma-separated window names (default: all)")
    ap.add_argument("--json", metavar="FILE", help="write totals and per-function counts to FILE")
    a = ap.parse_args()

    names = [l.strip() for l in open(os.path.join(a.out, "marks"))]
    recs = records(a.out)
    if len(recs) < len(names):
        raise SystemExit(f"kprof: {len(names)} marks but {len(recs)} records")
    # the last records are the marks' (the guest's boot may set the hostname too)
    wins = dict(zip(names, recs[len(recs) - len(names):]))
    pick = a.windows.split(",") if a.windows else [n for n in names if n != "begin"]

    syms = symbols(a.out)
    addrs = [s[0] for s in syms]
    per_fn = {}
    for n in pick:
        c = collections.Counter()
        for vaddr, count in wins[n].items():
            i = bisect.bisect_right(addrs, vaddr) - 1
            c[syms[i][1] if i >= 0 else "?"] += count
        per_fn[n] = c

    if a.json:
        with open(a.json, "w") as f:
            json.dump({n: {"total": sum(per_fn[n].values()) / a.per,
                           "functions": {fn: k / a.per for fn, k in per_fn[n].most_common()}}
                       for n in pick}, f, indent=1)
        return

    w = max(12, max(len(n) for n in pick) + 2)
    print(f"{'total':44s}" + "".join(f"{sum(per_fn[n].values()) / a.per:>{w}.0f}" for n in pick))
    fns = set().union(*per_fn.values())
    spread = {f: max(per_fn[n][f] for n in pick) - min(per_fn[n][f] for n in pick) for f in fns}
    print(f"{'function':44s}" + "".join(f"{n:>{w}s}" for n in pick))
    for f in sorted(fns, key=lambda f: -spread[f])[:a.top]:
        print(f"{f[:44]:44s}" + "".join(f"{per_fn[n][f] / a.per:{w}.1f}" for n in pick))


if __name__ == "__main__":
    main()
