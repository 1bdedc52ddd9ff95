#!/usr/bin/python3
"""Parse 'saakm stats --json' or '--openmetrics' output (stdin) with real
parsers, check it for consistency, and print one summary line per policy
for the shell tests to match:

    POLICY tasks=N picks=N migrations=N wake_count=N p50_us=X p99_us=X cpus=N

Usage: parse_stats.py json|openmetrics. Exit status 1 on a parse or
consistency error (with the reason on stderr).
"""
import json
import sys


def fail(msg):
    print(f"parse_stats: {msg}", file=sys.stderr)
    sys.exit(1)


def from_json(text):
    doc = json.loads(text)
    if doc.get("schema") != 1:
        fail(f"schema {doc.get('schema')!r}, expected 1")
    nb = len(doc["wake_hist_bounds_us"]) + 1
    for p in doc["policies"]:
        wl = p["wake_latency"]
        if len(wl["buckets"]) != nb or sum(wl["buckets"]) != wl["count"]:
            fail(f"{p['name']}: histogram does not add up to its count")
        for key in ("picks", "migrations", "runnable"):
            if sum(c[key] for c in p["cpus"]) != p[key]:
                fail(f"{p['name']}: {key} is not the sum of its CPUs'")
        if (p["ejection"] is None) == (p["state"] == "ejected"):
            pass  # an ejected policy may still be listed as disabling
        print(f"{p['name']} tasks={p['tasks']} picks={p['picks']} "
              f"migrations={p['migrations']} wake_count={wl['count']} "
              f"p50_us={wl['p50_us']} p99_us={wl['p99_us']} cpus={len(p['cpus'])} "
              f"ejected={int(p['ejection'] is not None)}")


def from_openmetrics(text):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
    from prometheus_client.parser import text_string_to_metric_families as prom

    fams = {f.name: f for f in om(text)}
    # The Prometheus text format (what node-exporter's textfile collector
    # reads) must accept it too.
    prom_names = {f.name for f in prom(text)}
    for name in ("saakm_policy_tasks", "saakm_cpu_picks", "saakm_wake_latency_seconds"):
        if name not in fams or name not in prom_names:
            fail(f"no family {name}")
    pols = {}
    for s in fams["saakm_policy_tasks"].samples:
        pols[s.labels["policy"]] = {"tasks": int(s.value), "picks": 0, "migrations": 0,
                                    "wake_count": 0, "cpus": set()}
    for s in fams["saakm_cpu_picks"].samples:
        pols[s.labels["policy"]]["picks"] += int(s.value)
        pols[s.labels["policy"]]["cpus"].add(s.labels["cpu"])
    for s in fams["saakm_cpu_migrations"].samples:
        pols[s.labels["policy"]]["migrations"] += int(s.value)
    last = {}
    for s in fams["saakm_wake_latency_seconds"].samples:
        key = (s.labels["policy"], s.labels["cpu"])
        if s.name.endswith("_bucket"):
            if s.value < last.get(key, 0):
                fail(f"{key}: buckets not cumulative")
            last[key] = s.value
        elif s.name.endswith("_count"):
            if s.value != last[key]:
                fail(f"{key}: count {s.value} is not the +Inf bucket {last[key]}")
            pols[key[0]]["wake_count"] += int(s.value)
    for name, p in pols.items():
        print(f"{name} tasks={p['tasks']} picks={p['picks']} migrations={p['migrations']} "
              f"wake_count={p['wake_count']} cpus={len(p['cpus'])}")


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("json", "openmetrics"):
        fail("usage: parse_stats.py json|openmetrics")
    text = sys.stdin.read()
    try:
        (from_json if sys.argv[1] == "json" else from_openmetrics)(text)
    except (ValueError, KeyError, TypeError) as e:
        fail(f"{sys.argv[1]}: {e!r}")


if __name__ == "__main__":
    main()
