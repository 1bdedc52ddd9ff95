#!/usr/bin/env python3
"""Compare two benchmark results directories, workload by workload:
the same benchmark run twice (for example on a quiet host and next to a
kernel build, docs/benchmarks.md "The runner's own reliability").

    compare.py DIR_A DIR_B [GUEST]

For every workload, metric and configuration of guest GUEST (default main)
it prints the mean ± 95% interval in each directory and the difference of
B from A in % of A with the 95% interval of that difference (Welch, as
bench/report.py). "agree" means that interval contains 0. The values are
those report.py would average: valid runs whose calibrations did not move.
Exit status 0 if every row agrees.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def load(d, guest):
    vals, runs, env = report.load_guest(os.path.join(d, guest))
    return vals, runs, report.read_kv(os.path.join(d, "host.txt"))


def host_line(name, d, host, runs, guest):
    other = [r["host_other_pct"] for r in runs if r.get("host_other_pct") is not None]
    pert = sum(1 for r in runs if r.get("perturbed"))
    load = f"{min(other):.0f}-{max(other):.0f}% (median {report.median(other):.0f}%)" if other else "n/a"
    return (f"- {name}: `{d}`: host load besides this guest {load}, "
            f"{host.get('hostload_' + guest, 'no host samples')}; {pert} perturbed attempt(s)")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    a_dir, b_dir = sys.argv[1], sys.argv[2]
    guest = sys.argv[3] if len(sys.argv) > 3 else "main"
    a_vals, a_runs, a_host = load(a_dir, guest)
    b_vals, b_runs, b_host = load(b_dir, guest)
    print(host_line("A", a_dir, a_host, a_runs, guest))
    print(host_line("B", b_dir, b_host, b_runs, guest))
    print()
    print("| Workload | Metric | Config | A | B | B vs A | |")
    print("|---|---|---|---|---|---|---|")
    rows = agree = 0
    for w in report.METRICS:
        if w not in a_vals and w not in b_vals:
            continue
        for m, _, direction in report.METRICS[w]:
            cfgs = sorted(set(a_vals[w][m]) | set(b_vals[w][m]))
            for c in cfgs:
                a = report.stats(a_vals[w][m].get(c, []))
                b = report.stats(b_vals[w][m].get(c, []))
                cmp = report.compare(b, a, direction)
                ok = cmp is not None and cmp["verdict"] == "within interval"
                rows += 1
                agree += ok
                print(f"| {w} | {m} | {c} | {report.cell(a)} | {report.cell(b)} | "
                      f"{report.pcell(cmp)} | {'agree' if ok else '**differ**'} |")
    print(f"\n{agree} of {rows} rows agree within their 95% intervals.")
    return 0 if rows and agree == rows else 1


if __name__ == "__main__":
    sys.exit(main())
