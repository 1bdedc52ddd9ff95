#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cost of a dispatch from another CPU's queue vs a local pick, from a recording.

    saakm dump FILE.rec | bench/dispatch-cost.py

A recording (saakm record) holds a CALL and a RET record, with trace-clock
timestamps, for every callback, in the order each CPU emitted them. On the
CPU that runs out of work, a pull from the shared queue is

    CALL newly_idle -> RET newly_idle (src) -> CALL balance_pick ->
    RET balance_pick (pid) -> [class: both rq locks, migration] ->
    CALL unblock_place (pid) -> RET unblock_place

and a local pick is CALL schedule -> RET schedule (a task). This prints, in
ns, count / mean / p50 / p99 of: the whole pull (first CALL to last RET),
its class part (RET balance_pick to CALL unblock_place: locking the source
runqueue and migrating), its policy part (the three callbacks), and the
local pick. Recording costs a trace event per record; it inflates every
figure alike (a few hundred ns per record in a guest), which is why the
class part, between two records, is the cleanest of them.
"""
import re
import sys

LINE = re.compile(r"^\d+ (\d+) \[(\d+)\] (CALL|RET)\s+(\w+)(.*)$")


def pct(vals, p):
    return vals[min(len(vals) - 1, int(len(vals) * p / 100))]


def summary(name, vals):
    if not vals:
        return f"{name:<34} count 0"
    vals = sorted(vals)
    mean = sum(vals) / len(vals)
    return (f"{name:<34} count {len(vals):6d}  mean {mean:8.0f}  p50 {pct(vals, 50):8d}"
            f"  p99 {pct(vals, 99):8d}")


def main():
    pulls, class_part, policy_part, local = [], [], [], []
    state = {}          # per emitting CPU: the pull in progress
    sched_start = {}    # per emitting CPU: ts of CALL schedule
    for line in sys.stdin:
        m = LINE.match(line.strip())
        if not m:
            continue
        ts, cpu, kind, ev, rest = int(m[1]), int(m[2]), m[3], m[4], m[5]
        st = state.get(cpu)
        if kind == "CALL" and ev == "newly_idle":
            state[cpu] = {"t0": ts, "phase": "idle"}
        elif st and kind == "RET" and ev == "newly_idle":
            if rest.strip().endswith("-> -1"):
                state.pop(cpu)
            else:
                st.update(phase="picked_src", idle_ns=ts - st["t0"])
        elif st and kind == "CALL" and ev == "balance_pick" and st["phase"] == "picked_src":
            st.update(phase="pick", bp0=ts)
        elif st and kind == "RET" and ev == "balance_pick" and st["phase"] == "pick":
            mm = re.search(r"-> pid (\d+)", rest)
            if not mm:
                state.pop(cpu)
            else:
                st.update(phase="moved", pid=mm[1], bp_ns=ts - st["bp0"], bp1=ts)
        elif st and kind == "CALL" and ev == "unblock_place" and st["phase"] == "moved":
            if f"pid {st['pid']} " in rest + " ":
                st.update(phase="place", up0=ts)
            else:
                state.pop(cpu)
        elif st and kind == "RET" and ev == "unblock_place" and st["phase"] == "place":
            pulls.append(ts - st["t0"])
            class_part.append(st["up0"] - st["bp1"])
            policy_part.append(st["idle_ns"] + st["bp_ns"] + ts - st["up0"])
            state.pop(cpu)
        if kind == "CALL" and ev == "schedule":
            sched_start[cpu] = ts
        elif kind == "RET" and ev == "schedule" and cpu in sched_start:
            if "-> pid" in rest:
                local.append(ts - sched_start[cpu])
            del sched_start[cpu]
    print("dispatch cost, ns (recorder overhead included):")
    print(summary("pull from another CPU (whole)", pulls))
    print(summary("  class: rq locks + migration", class_part))
    print(summary("  policy: newly_idle+pick+place", policy_part))
    print(summary("local pick (schedule)", local))
    return 0 if pulls and local else 1


if __name__ == "__main__":
    sys.exit(main())
