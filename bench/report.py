#!/usr/bin/env python3
"""Turn a benchmark run directory into results.json, results.md and chart.png.

    report.py OUTDIR

OUTDIR (written by bench/run.sh) holds host.txt and one directory per guest
(main/, nopol-patched-N/, nopol-vanilla-N/, multipol/, record/, dispersive/),
each with runs.tsv,
env.txt and raw/<workload>.<config>.<rep>.out. Only runs marked valid (the
workload's tasks were checked to be in the intended class, exit status 0)
are used, and of those only the runs whose bracketing calibrations did not
move (bench/guest.sh BENCH_CALIB: a perturbed run was rerun, and one still
perturbed after its reruns is listed, not averaged). Every run carries the
host load it ran next to (<guest>.hostload.tsv, sampled by bench/run.sh) and
what it waited for (idle_ms, irq_9p). Means are given with a 95% confidence
interval from Student's t
distribution; comparisons give the difference of the means in % of the
reference with the 95% interval of that difference (Welch). The dispersive
study's tables and plot come from bench/dispersive/plot.py.
"""
import json
import math
import os
import re
import sys
from collections import defaultdict

ELAPSED = r"schedrun: .* elapsed_s=([\d.]+)"
WAKELAT = [("p50_us", r"p50_us=([\d.]+)", "lower"),
           ("p99_us", r"p99_us=([\d.]+)", "lower"),
           ("p99.9_us", r"p999_us=([\d.]+)", "lower"),
           ("rounds_per_s", r"rounds_per_s=([\d.]+)", "higher")]
# workload -> [(metric, regex, direction)], direction: lower|higher is better
METRICS = {
    "hackbench_proc": [("time_s", r"^Time:\s*([\d.]+)", "lower")],
    "hackbench_thr": [("time_s", r"^Time:\s*([\d.]+)", "lower")],
    "pipe": [("usecs_per_op", r"([\d.]+)\s+usecs/op", "lower")],
    "pipe_1cpu": [("usecs_per_op", r"([\d.]+)\s+usecs/op", "lower")],
    "messaging": [("time_s", r"Total time:\s*([\d.]+)", "lower")],
    "wakelat": WAKELAT,
    "wakelat_1cpu": WAKELAT,
    "7zip": [("time_s", r"Global\s+Time\s*=\s*([\d.]+)", "lower")],
    "stockfish": [("nodes_per_s", r"Nodes/second\s*:\s*(\d+)", "higher")],
    "ffmpeg": [("time_s", r"bench: utime=\S+ stime=\S+ rtime=([\d.]+)s", "lower")],
}
DESCR = {
    "hackbench_proc": "hackbench, processes",
    "hackbench_thr": "hackbench, threads",
    "pipe": "perf bench sched pipe",
    "pipe_1cpu": "perf bench sched pipe, both on 1 CPU",
    "messaging": "perf bench sched messaging",
    "wakelat": "wakelat (futex wakeups)",
    "wakelat_1cpu": "wakelat, all on 1 CPU",
    "7zip": "7-Zip compress (7zz a)",
    "stockfish": "stockfish bench",
    "ffmpeg": "ffmpeg mpeg4 encode",
}


def config_table(out):
    """{configuration: {"class": .., "label": ..}} from the run's snapshot of
    bench/configs, or from the repository's table."""
    path = os.path.join(out, "configs")
    if not os.path.exists(path):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs")
    table = {}
    for line in open(path):
        f = line.split()
        if f and not f[0].startswith("#") and len(f) >= 6:
            table[f[0]] = {"class": f[1], "label": " ".join(f[5:])}
    return table


def config_labels(out):
    return {c: t["label"] for c, t in config_table(out).items()}

# two-sided 95% Student t quantiles, df 1..30
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    if df < 1:
        return float("nan")
    df = int(math.floor(df))
    return T95[df - 1] if df <= 30 else 1.96 + 2.5 / df


def stats(xs):
    n = len(xs)
    if n == 0:
        return None
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else float("nan")
    ci = t95(n - 1) * sd / math.sqrt(n) if n > 1 else float("nan")
    return {"n": n, "mean": mean, "sd": sd, "ci95": ci, "values": xs}


def compare(a, b, direction):
    """a relative to b: difference of means in % of b, Welch 95% interval."""
    if not a or not b or b["mean"] == 0:
        return None
    pct = (a["mean"] - b["mean"]) / b["mean"] * 100
    if a["n"] > 1 and b["n"] > 1:
        va, vb = a["sd"] ** 2 / a["n"], b["sd"] ** 2 / b["n"]
        se = math.sqrt(va + vb)
        if se > 0:
            df = (va + vb) ** 2 / ((va ** 2 / (a["n"] - 1) if va else 0) + (vb ** 2 / (b["n"] - 1) if vb else 0) or 1e-300)
        else:
            df = a["n"] + b["n"] - 2
        ci = t95(df) * se / b["mean"] * 100
    else:
        ci = float("nan")
    worse = pct > 0 if direction == "lower" else pct < 0
    if math.isnan(ci):
        verdict = "one run, no interval"
    elif abs(pct) <= ci:
        verdict = "within interval"
    else:
        verdict = "worse" if worse else "better"
    return {"pct": pct, "ci95_pct": ci, "verdict": verdict}


def cost_pct(c, direction):
    """(cost %, ci %): positive cost = slower/worse, whatever the direction."""
    return (c["pct"] if direction == "lower" else -c["pct"]), c["ci95_pct"]


def judge(rows, key, limit):
    """'yes' if every metric's cost is <= limit% with 95% confidence (upper
    bound of the interval), 'no' if some metric's cost is > limit% with 95%
    confidence (lower bound), else 'inconclusive' (the interval straddles it)."""
    verdict = "yes"
    for r in rows:
        c = r.get(key)
        if not c:
            return "inconclusive"
        cost, ci = cost_pct(c, r["direction"])
        if math.isnan(ci):
            return "inconclusive"
        if cost - ci > limit:
            return "no"
        if cost + ci > limit:
            verdict = "inconclusive"
    return verdict


def figs(rows, key):
    out = []
    for r in rows:
        c = r.get(key)
        if c:
            ci = "" if math.isnan(c["ci95_pct"]) else f" ± {c['ci95_pct']:.2f}"
            out.append(f"{r['workload']}/{r['metric']} {c['pct']:+.2f}%{ci}")
    return ", ".join(out)


def fmt(v, digits=None):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if digits is None:
        a = abs(v)
        digits = 0 if a >= 1000 else 1 if a >= 100 else 2 if a >= 10 else 3
    return f"{v:,.{digits}f}"


def cell(s):
    if not s:
        return "n/a"
    return f"{fmt(s['mean'])} ± {fmt(s['ci95'])}" if s["n"] > 1 else fmt(s["mean"])


def pcell(c):
    if not c:
        return "n/a"
    ci = "" if math.isnan(c["ci95_pct"]) else f" ± {c['ci95_pct']:.1f}"
    return f"{c['pct']:+.2f}%{ci} ({c['verdict']})"


def read_kv(path):
    d = {}
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                d[k] = v
    return d


def num(x):
    """a runs.tsv / hostload.tsv field as a number, None for '-' or missing"""
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def host_samples(gdir):
    """-> {runs_done: [(other_pct, busy_pct, loadavg1)]} from the host load
    sampled next to guest @gdir (bench/run.sh, <guest>.hostload.tsv): the
    samples taken while run number runs_done + 1 of runs.tsv was going on."""
    path = gdir.rstrip("/") + ".hostload.tsv"
    per = defaultdict(list)
    if os.path.exists(path):
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 5 and f[0] != "t_s":
                per[int(f[4])].append((float(f[2]), float(f[1]), float(f[3])))
    return per


def load_guest(gdir):
    """-> (values[workload][metric][config] = [..], runs list, env)"""
    vals = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    runs = []
    tsv = os.path.join(gdir, "runs.tsv")
    if not os.path.exists(tsv):
        return vals, runs, read_kv(os.path.join(gdir, "env.txt"))
    rows = [line.rstrip("\n").split("\t") for line in open(tsv)]
    rows = [f for f in rows if f[0] != "workload" and len(f) >= 5]
    # the attempts of each run: all but the last were perturbed and rerun
    last = {}
    for f in rows:
        last[tuple(f[:3])] = f[5] if len(f) > 5 else "1"
    host = host_samples(gdir)
    for k, f in enumerate(rows):
        w, c, r, st, valid = f[:5]
        attempt = f[5] if len(f) > 5 else "1"
        superseded = last[(w, c, r)] != attempt
        raw = os.path.join(gdir, "raw", f"{w}.{c}.{r}.try{attempt}.out" if superseded else f"{w}.{c}.{r}.out")
        text = open(raw, errors="replace").read() if os.path.exists(raw) else ""
        chk = re.findall(r"^schedrun: .*$", text, re.M)
        run = {"workload": w, "config": c, "rep": int(r), "status": int(st),
               "valid": valid == "1", "check": chk[-1] if chk else None, "metrics": {},
               "attempt": int(attempt), "perturbed": len(f) > 6 and f[6] == "1",
               "superseded": superseded}
        if len(f) > 10:
            run.update(cal_before_ns=num(f[7]), cal_after_ns=num(f[8]), idle_ms=num(f[9]),
                       irq_9p=num(f[10]))
        if len(f) > 13:
            # the workload's timed phase and the longest stretch of the run
            # without a 9p request in flight (bench/guest.sh BENCH_TRACE_9P)
            run.update(window_ms=num(f[11]), free_ms=num(f[12]), why=None if f[13] == "-" else f[13])
        hs = host.get(k, [])
        if hs:
            run["host_other_pct"] = sum(h[0] for h in hs) / len(hs)
            run["host_busy_pct"] = sum(h[1] for h in hs) / len(hs)
            run["host_loadavg1"] = max(h[2] for h in hs)
        for metric, rx, _ in METRICS.get(w, []):
            m = re.findall(rx, text, re.M)
            if m:
                run["metrics"][metric] = float(m[-1])
        if run["valid"] and run["perturbed"]:
            # not averaged in: counted apart from the rejected runs
            run["valid"] = False
            run["why"] = (f"perturbed ({run.get('why') or 'calibration'})" +
                          (", rerun" if superseded else ", no rerun left"))
        if run["valid"]:
            if len(run["metrics"]) != len(METRICS.get(w, [])):
                run["valid"] = False
                run["why"] = "metric missing from the output"
            else:
                for k, v in run["metrics"].items():
                    vals[w][k][c].append(v)
        runs.append(run)
    return vals, runs, read_kv(os.path.join(gdir, "env.txt"))


def merge(dst, src, rename=None):
    for w, ms in src.items():
        for m, cs in ms.items():
            for c, xs in cs.items():
                dst[w][m][rename or c].extend(xs)


def direction(w, m):
    return next(d for mm, _, d in METRICS[w] if mm == m)


MODE_TEXT = {
    "icount": ("Timing mode: **icount** (QEMU TCG `-icount shift=0,sleep=off`): the guest clock "
               "advances by 1 ns per guest instruction, so every figure is an *instruction-path "
               "cost*, repeatable on a busy host. With icount, QEMU runs the vCPUs round-robin on one "
               "host thread and the clock counts the instructions of *all* vCPUs, so two busy vCPUs "
               "advance it twice as fast as one: parallel speed-up, and so load balance, is not "
               "measured; idle time is skipped to the next timer (sleep=off). Nor are caches, memory "
               "bandwidth, TLBs, branch prediction, the real cost of an IPI or lock contention "
               "modelled. What is measured is how many instructions the workload and the kernel "
               "execute for it - the framework's own cost, which is what the SaaKM-vs-ext "
               "comparison is about. CPU-bound applications (7-Zip, ffmpeg) mostly measure their "
               "own instructions here."),
    "realtime": ("Timing mode: **realtime** (QEMU multi-threaded TCG, no icount): each vCPU is a "
                 "host thread and the guest clock follows the host's, so parallelism and placement "
                 "show, but figures include TCG's translation overhead and the noise of whatever else "
                 "runs on the (2-core) host; compare only within one run, and expect wide intervals."),
    "bare-metal": ("Timing mode: **bare metal** (bench/run.sh --local): real hardware time, with its "
                   "caches, memory and parallelism."),
}


def main():
    out = sys.argv[1]
    host = read_kv(os.path.join(out, "host.txt"))
    res = {"host": host, "studies": {}}
    md = []
    mode = host.get("mode", "?")
    md.append(f"# SaaKM benchmarks: {os.path.basename(os.path.abspath(out))}\n")
    md.append(f"- timing mode: {mode}; {host.get('cpus', '?')} vCPUs; {host.get('reps', '?')} "
              f"repetitions; size {host.get('size', '?')}; commit {host.get('commit', '?')}; {host.get('date', '')}")
    md.append("- every run was checked to run in the intended class (`/proc/PID/task/TID/sched` "
              "policy of all the workload's tasks, sampled while it ran; `ext.enabled` for sched_ext); "
              "rejected runs are not in the means")
    md.append("- sched_ext: " + ("each scheduler enabled only during its own configuration's runs "
                                 "(`--ext own`)" if host.get("ext_mode") == "own" else
                                 "the study's first partial-mode scheduler enabled during the runs "
                                 "of configurations without one (`--ext resident`)"))
    md.append(f"- {MODE_TEXT.get(mode, '')}\n")

    chart_rows = []
    all_runs = {}
    goals = []
    # --- main study -----------------------------------------------------------
    gdir = os.path.join(out, "main")
    main_cfgs = read_kv(os.path.join(gdir, "env.txt")).get("configs", "eevdf ext saakm").split()
    if os.path.isdir(gdir) and {"ext", "saakm"} <= set(main_cfgs):
        vals, runs, env = load_guest(gdir)
        all_runs["main"] = runs
        rows = []
        md.append(f"## SaaKM FIFO vs. its sched_ext twin vs. EEVDF (kernel {env.get('kernel', '?')})\n")
        md.append("Layout of the SaaKM paper's Table II. Mean ± 95% interval (t distribution) over the "
                  "valid runs; last column: SaaKM relative to ext, with the 95% interval of the difference.\n")
        md.append("| Workload | Metric | Better | EEVDF | ext | SaaKM | SaaKM vs ext |")
        md.append("|---|---|---|---|---|---|---|")
        for w in METRICS:
            if w not in vals:
                continue
            for m, _, d in METRICS[w]:
                s = {c: stats(vals[w][m].get(c, [])) for c in ("eevdf", "ext", "saakm")}
                cmp_ext = compare(s["saakm"], s["ext"], d)
                cmp_eevdf = compare(s["saakm"], s["eevdf"], d)
                rows.append({"workload": w, "metric": m, "direction": d, **{c: s[c] for c in s},
                             "saakm_vs_ext": cmp_ext, "saakm_vs_eevdf": cmp_eevdf})
                md.append(f"| {DESCR[w]} | {m} | {d} | {cell(s['eevdf'])} | {cell(s['ext'])} | "
                          f"{cell(s['saakm'])} | {pcell(cmp_ext)} |")
                chart_rows.append((f"{w}\n{m}", d, s))
        res["studies"]["main"] = {"env": env, "rows": rows}
        worse = [r for r in rows if r["saakm_vs_ext"] and r["saakm_vs_ext"]["verdict"] == "worse"]
        goals.append(("SaaKM FIFO at least as fast as the sched_ext twin on every workload "
                      "(ratio within the interval or better)",
                      "no" if worse or not rows else
                      "inconclusive" if any(r["saakm_vs_ext"] and math.isnan(r["saakm_vs_ext"]["ci95_pct"])
                                            for r in rows) else "yes",
                      "worse on: " + ", ".join(f"{r['workload']}/{r['metric']}" for r in worse)
                      if worse else f"{len(rows)} metrics: none significantly worse"))
        pipes = [r for r in rows if r["workload"] in ("pipe", "pipe_1cpu") and r["saakm_vs_eevdf"]]
        if pipes:
            goals.append(("pipe round trip under SaaKM at most +5% over EEVDF, same boot (study c)",
                          judge(pipes, "saakm_vs_eevdf", 5),
                          "; ".join(f"{r['workload']}: SaaKM {fmt(r['saakm']['mean'])} vs EEVDF "
                                    f"{fmt(r['eevdf']['mean'])} us, {r['saakm_vs_eevdf']['pct']:+.2f}% "
                                    f"± {r['saakm_vs_eevdf']['ci95_pct']:.2f}" for r in pipes)))
        md.append("")

    # --- the main study with other configurations (bench/run.sh --configs) ----
    if os.path.isdir(gdir) and set(main_cfgs) != {"eevdf", "ext", "saakm"}:
        vals, runs, env = load_guest(gdir)
        all_runs["main"] = runs
        configs_study(vals, main_cfgs, env, config_labels(out), res, md)

    # --- overhead (a): patched, nothing loaded, vs unpatched -------------------
    pat = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    van = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    kern = {}
    for name in sorted(os.listdir(out)):
        p = os.path.join(out, name)
        if os.path.isdir(p) and (name.startswith("nopol-patched") or name.startswith("nopol-vanilla")):
            v, runs, env = load_guest(p)
            all_runs[name] = runs
            which = "patched" if "patched" in name else "vanilla"
            kern[which] = env.get("kernel", "?")
            merge(pat if which == "patched" else van, v, which)
    if pat or van:
        md.append("## Overhead (a): patched kernel, no policy loaded, vs. unpatched 6.12\n")
        md.append(f"EEVDF only, nothing loaded. Patched: `{kern.get('patched', '?')}` (build/linux), "
                  f"unpatched: `{kern.get('vanilla', '?')}` (build/linux-vanilla: same tarball and "
                  "config fragments, no SaaKM patches or files, CONFIG_SCHED_CLASS_SAAKM absent). "
                  "Guests booted alternately, runs pooled over the boots.\n")
        md.append("| Workload | Metric | Better | unpatched | patched, no policy | patched vs unpatched |")
        md.append("|---|---|---|---|---|---|")
        rows = []
        for w in METRICS:
            if w not in pat and w not in van:
                continue
            for m, _, d in METRICS[w]:
                a = stats(pat[w][m].get("patched", []))
                b = stats(van[w][m].get("vanilla", []))
                c = compare(a, b, d)
                rows.append({"workload": w, "metric": m, "direction": d, "patched": a,
                             "vanilla": b, "patched_vs_vanilla": c})
                md.append(f"| {DESCR[w]} | {m} | {d} | {cell(b)} | {cell(a)} | {pcell(c)} |")
        res["studies"]["overhead_nopolicy"] = {"kernels": kern, "rows": rows}
        goals.append(("no-policy patched kernel within 0.5% of the unpatched one",
                      judge(rows, "patched_vs_vanilla", 0.5) if rows else "no",
                      figs(rows, "patched_vs_vanilla")))
        md.append("")

    # --- two configurations in one guest: (b) 1 vs 8 policies; recording -----
    pair_study(out, "multipol", "Overhead (b): 1 vs. 8 SaaKM policies loaded",
               "saakm_fifo alone vs. saakm_fifo registered after 7 idle policies "
               "(bench/nullpol), the benchmark's tasks in saakm_fifo; interleaved run by run in one guest.",
               ("saakm1", "1 policy"), ("saakm8", "8 policies"), "overhead_multipolicy",
               ("8 policies loaded cost at most 1% over one", 1), res, goals, md, all_runs)
    pair_study(out, "record", "Recording overhead: saakm_fifo recorded vs. not",
               "The benchmark's tasks in saakm_fifo, with the recorder off, or on "
               "(/sys/kernel/saakm/record, records into the kernel's per-CPU arrays of "
               "64 MiB, as `saakm record -b 65536` does); interleaved run by run in one guest. "
               "Slots per run (a CALL and its RET share one) are in the raw outputs (records=, lost=).",
               ("saakm", "not recorded"), ("saakmrec", "recorded"), "recording_overhead",
               ("recording costs at most 10% (perf bench sched pipe)", 10), res, goals, md,
               all_runs, only=("pipe", "pipe_1cpu"))

    # --- dispersive load (bench/dispersive/plot.py) ---------------------------
    gdir = os.path.join(out, "dispersive")
    if os.path.isdir(gdir):
        sys.dont_write_bytecode = True  # no __pycache__ in the source tree
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "dispersive"))
        import plot as dispersive_plot
        _, runs, env = load_guest(gdir)
        all_runs["dispersive"] = runs
        dmd, dgoals, dres = dispersive_plot.study(out, runs, host)
        md.extend(dmd)
        goals.extend(dgoals)
        res["studies"]["dispersive"] = {"env": env, **dres}

    if goals:
        md.append("## Goals\n")
        md.append("Met = the 95% interval of the cost lies inside the limit; no = it lies outside; "
                  "inconclusive = it straddles the limit (more repetitions needed).\n")
        md.append("| Goal | Met? | Figures (mean difference ± 95% interval) |")
        md.append("|---|---|---|")
        for g, ok, fig in goals:
            md.append(f"| {g} | {ok if ok == 'yes' else '**' + ok + '**'} | {fig} |")
        md.append("")
    res["goals"] = [{"goal": g, "met": ok, "figures": f} for g, ok, f in goals]

    res["reliability"] = reliability(out, host, all_runs, md)

    rejected = [(g, r) for g, runs in all_runs.items() for r in runs
                if not r["valid"] and not r.get("perturbed")]
    nruns = sum(len(r) for r in all_runs.values())
    md.append(f"## Runs\n\n{nruns} runs, {len(rejected)} rejected (wrong class or failed).")
    for g, r in rejected:
        md.append(f"- rejected {g}: {r['workload']}/{r['config']}/{r['rep']} status {r['status']}"
                  f" {r.get('why', '')} `{r['check']}`")
    md.append("")
    res["runs"] = all_runs

    if chart_rows:
        try:
            chart(chart_rows, os.path.join(out, "chart.png"), host)
            md.append("![chart](chart.png)\n")
        except Exception as e:  # the table matters more than the picture
            print(f"report: no chart: {e}", file=sys.stderr)

    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1, default=lambda o: None)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if not n else xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def reliability(out, host, all_runs, md):
    """The runner's own reliability, per guest: the calibrations (spread per
    configuration), the perturbed attempts and what became of them, the host
    load next to the guest, and what the runs waited for. -> summary dict."""
    summary = {}
    md.append("## Reliability of the runner\n")
    md.append(f"Calibration: {host.get('calibration', 'n/a')} (bench/calib under EEVDF before and after "
              "every run; a run is perturbed when one of its calibrations is further than the tolerance "
              "from the median of its configuration's calibrations, or from the other, and is then rerun). "
              f"Host: {host.get('host_cpus', '?')} CPUs, load average {host.get('host_loadavg_start', '?')} "
              f"at the start, {host.get('host_loadavg_end', '?')} at the end.\n")
    md.append("A run is also perturbed when its timed phase (the workload's own timer) is longer than the "
              "longest stretch of the run without a 9p request in flight (9p tracepoints): then it waited "
              "for the host, and the guest clock jumped ahead while it did. Idle ms: the smallest idle time "
              "of any CPU during the run (the clock can jump only while all are idle).\n")
    md.append("| Guest | Runs (attempts) | Perturbed attempts | Left perturbed | Calibration: config n median ms max dev | "
              "Host other-load % median / max | Run idle ms median / max | 9p irqs per run median / max | "
              "Timed phase free of 9p (checked) |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    for g, runs in all_runs.items():
        gdir = os.path.join(out, g)
        cal = defaultdict(list)
        cpath = os.path.join(gdir, "calib.tsv")
        if os.path.exists(cpath):
            for line in open(cpath):
                f = line.rstrip("\n").split("\t")
                if len(f) >= 3 and f[0] != "seq":
                    cal[f[1]].append(float(f[2]))
        cal_txt = []
        cal_sum = {}
        for c, xs in cal.items():
            m = median(xs)
            dev = max(abs(x - m) / m * 100 for x in xs)
            cal_sum[c] = {"n": len(xs), "median_ns": m, "max_dev_pct": dev}
            cal_txt.append(f"{c} {len(xs)} {m / 1e6:.2f} {dev:.2f}%")
        pert = [r for r in runs if r.get("perturbed")]
        left = [r for r in pert if not r.get("superseded")]
        finals = [r for r in runs if not r.get("superseded")]
        other = [r["host_other_pct"] for r in runs if r.get("host_other_pct") is not None]
        idle = [r["idle_ms"] for r in runs if r.get("idle_ms") is not None]
        irq = [r["irq_9p"] for r in runs if r.get("irq_9p") is not None]

        checked = [r for r in runs if r.get("window_ms") is not None and r.get("free_ms") is not None]
        io_free = [r for r in checked if r["window_ms"] <= r["free_ms"]]

        def mm(xs, d=0):
            return f"{median(xs):.{d}f} / {max(xs):.{d}f}" if xs else "n/a"
        md.append(f"| {g} | {len(finals)} ({len(runs)}) | {len(pert)} | {len(left)} | "
                  f"{'; '.join(cal_txt) or 'off'} | {mm(other, 1)} | {mm(idle)} | {mm(irq)} | "
                  f"{len(io_free)} of {len(checked)} attempts |")
        summary[g] = {"calibration": cal_sum, "attempts": len(runs), "runs": len(finals),
                      "perturbed_attempts": len(pert), "left_perturbed": len(left),
                      "host_other_pct": {"median": median(other), "max": max(other)} if other else None}
        for r in pert:
            b, a = r.get("cal_before_ns"), r.get("cal_after_ns")
            m = cal_sum.get(r["config"], {}).get("median_ns")
            devs = ", ".join(f"{(x - m) / m * 100:+.2f}%" for x in (b, a) if x and m)
            md.append(f"|  | perturbed: {r['workload']}/{r['config']}/{r['rep']} attempt {r['attempt']} | "
                      f"{r.get('why')}: calibrations {devs} | {'rerun' if r['superseded'] else '**not averaged**'} | | "
                      f"{r.get('host_other_pct', float('nan')):.1f} | {r.get('idle_ms')} | {r.get('irq_9p')} | "
                      f"timed {r.get('window_ms')} ms, 9p-free {r.get('free_ms')} ms |")
    md.append("")
    return summary


# comparisons the report makes, shown when both configurations ran:
# (configuration, reference)
PAIRS = [("eevdf_mod", "eevdf"), ("eevdf_mod", "eevdf_nodd"), ("wfq", "ext_wfq"), ("wfq", "eevdf"),
         ("wfq_gran0", "eevdf"), ("saakm", "ext")]


def configs_study(vals, cfgs, env, labels, res, md):
    """Every configuration of the main guest side by side, and the PAIRS
    present, each as a difference in % of the reference with its interval."""
    pairs = [p for p in PAIRS if p[0] in cfgs and p[1] in cfgs]
    md.append(f"## Configurations {', '.join(cfgs)} (kernel {env.get('kernel', '?')})\n")
    md.append("Mean ± 95% interval over the valid runs; comparisons: the difference of the means in % "
              "of the reference, with the 95% interval of that difference.\n")
    md.append("| Workload | Metric | Better | " + " | ".join(labels.get(c, c) for c in cfgs) + " | " +
              " | ".join(f"{a} vs {b}" for a, b in pairs) + " |")
    md.append("|---|---|---|" + "---|" * (len(cfgs) + len(pairs)))
    rows = []
    for w in METRICS:
        if w not in vals:
            continue
        for m, _, d in METRICS[w]:
            s = {c: stats(vals[w][m].get(c, [])) for c in cfgs}
            cmp = {f"{a}_vs_{b}": compare(s[a], s[b], d) for a, b in pairs}
            rows.append({"workload": w, "metric": m, "direction": d, **s, **cmp})
            md.append(f"| {DESCR[w]} | {m} | {d} | " + " | ".join(cell(s[c]) for c in cfgs) + " | " +
                      " | ".join(pcell(cmp[f"{a}_vs_{b}"]) for a, b in pairs) + " |")
    res["studies"]["configs"] = {"env": env, "configs": cfgs, "rows": rows}
    md.append("")


def pair_study(out, name, title, intro, base, other, key, goal, res, goals, md, all_runs,
               only=None):
    """Two configurations interleaved in guest @name: a table of @other vs
    @base ((config, label) pairs) per metric, and @goal ((text, limit %))
    judged on the primary metrics (of the workloads in @only, if given)."""
    gdir = os.path.join(out, name)
    if not os.path.isdir(gdir):
        return
    vals, runs, env = load_guest(gdir)
    all_runs[name] = runs
    md.append(f"## {title}\n")
    md.append(intro + "\n")
    md.append(f"| Workload | Metric | Better | {base[1]} | {other[1]} | {other[1]} vs {base[1]} |")
    md.append("|---|---|---|---|---|---|")
    rows = []
    for w in METRICS:
        if w not in vals:
            continue
        for m, _, d in METRICS[w]:
            a = stats(vals[w][m].get(other[0], []))
            b = stats(vals[w][m].get(base[0], []))
            c = compare(a, b, d)
            rows.append({"workload": w, "metric": m, "direction": d, base[0]: b, other[0]: a,
                         "ratio": c})
            md.append(f"| {DESCR[w]} | {m} | {d} | {cell(b)} | {cell(a)} | {pcell(c)} |")
    res["studies"][key] = {"env": env, "rows": rows}
    prim = [r for r in rows if r["ratio"] and r["metric"] in ("usecs_per_op", "time_s", "p50_us")
            and (only is None or r["workload"] in only)]
    goals.append((goal[0], judge(prim, "ratio", goal[1]) if prim else "no", figs(prim, "ratio")))
    md.append("")


def chart(rows, path, host):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    cfgs = [("eevdf", "EEVDF", "#888888"), ("ext", "sched_ext twin", "#4C72B0"),
            ("saakm", "SaaKM FIFO", "#DD8452")]
    labels, series = [], {c: ([], []) for c, _, _ in cfgs}
    for label, d, s in rows:
        base = s.get("eevdf")
        if not base or not base["mean"]:
            continue
        labels.append(label)
        for c, _, _ in cfgs:
            x = s.get(c)
            if not x or not x["mean"]:
                series[c][0].append(0)
                series[c][1].append(0)
                continue
            # performance relative to EEVDF, >1 is better whatever the direction
            rel = x["mean"] / base["mean"] if d == "higher" else base["mean"] / x["mean"]
            err = rel * (x["ci95"] / x["mean"]) if x["n"] > 1 else 0
            err = 0 if math.isnan(err) else min(err, rel * 0.95)  # stay > 0 on a log axis
            series[c][0].append(rel)
            series[c][1].append(err)
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(labels) + 2), 4.8))
    width = 0.27
    for i, (c, name, color) in enumerate(cfgs):
        xs = [j + (i - 1) * width for j in range(len(labels))]
        ax.bar(xs, series[c][0], width, yerr=series[c][1], label=name, color=color, capsize=2)
    ax.axhline(1.0, color="black", linewidth=0.6)
    # log scale: one tail-latency outlier (e.g. 18x) must not flatten the rest
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("performance relative to EEVDF (>1 better, log scale)")
    ax.set_title(f"SaaKM FIFO vs sched_ext twin vs EEVDF — {host.get('mode', '?')} mode, "
                 f"{host.get('cpus', '?')} vCPUs, mean ± 95% CI")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
