#!/usr/bin/env python3
"""Split a two-task ping-pong's wakeups into segments, from a trace.

Input: `trace-cmd report -t` of a recording with the sched:sched_waking,
sched:sched_wakeup, sched:sched_switch and (optionally)
irq_vectors:call_function_single_entry events, taken while `perf bench
sched pipe` ran. The two tasks are the two pids switched in most often.

For each time one of them is switched in after a wakeup it prints, for
local wakeups (waker and wakee on one CPU: the pair shares it) and remote
ones apart:
  waking->wakeup      from the waker's try_to_wake_up() to the wakee on
                      its runqueue (remote: the IPI and idle exit)
  wakeup->switch in   from there to the wakee running (the pick)
and for all runs:
  run (in->out)       the wakee's run until it blocks again. Under `scripts/vm.sh --icount` (shift=0) a
nanosecond of trace time is one guest instruction, so the segments count
instructions. docs/benchmarks.md ("Where the port's 2-CPU pipe time
goes") has the recipe.

Usage: bench/wake-segments.py REPORT.txt...
"""
import re
import statistics
import sys
from collections import Counter

LINE = re.compile(r'^\s*.+?-(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\w+):\s+(.*)$')
# trace-cmd's compact formats: "comm:pid [prio] STATE ==> comm:pid [prio]"
# for sched_switch, "comm:pid [prio] ..." for the wakeup events
SWITCH = re.compile(r'^.*:(\d+) \[\d+\] \S+ ==> .*:(\d+) \[\d+\]')
TASK = re.compile(r'^(?:comm=\S+ pid=(\d+)|.*?:(\d+) \[)')


def events(path):
    """(ns, cpu, event, args) for each event line of a report."""
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if m:
                yield float(m.group(3)) * 1e9, int(m.group(2)), m.group(4), m.group(5).strip()


def switch_pids(args):
    m = SWITCH.match(args)
    return int(m.group(1)), int(m.group(2))


def woken_pid(args):
    m = TASK.match(args)
    return int(m.group(1) or m.group(2))


def analyse(path):
    evs = list(events(path))
    switched_in = Counter(switch_pids(a)[1] for _, _, n, a in evs if n == 'sched_switch')
    pair = [p for p, _ in switched_in.most_common() if p != 0][:2]
    seg = {k: [] for k in ('waking->wakeup, remote', 'waking->wakeup, local',
                           'wakeup->switch in, remote', 'wakeup->switch in, local',
                           'run (in->out)')}
    local = remote = ipis = 0
    last = {}
    for t, cpu, name, args in evs:
        if name in ('sched_waking', 'sched_wakeup'):
            pid = woken_pid(args)
            if pid in pair:
                last[pid, name] = t, cpu
        elif name == 'sched_switch':
            prev, nxt = switch_pids(args)
            if nxt in pair:
                wk, wu = last.get((nxt, 'sched_waking')), last.get((nxt, 'sched_wakeup'))
                if wk and wu and wk[0] <= wu[0] <= t:
                    where = 'local' if wk[1] == cpu else 'remote'
                    seg['waking->wakeup, ' + where].append(wu[0] - wk[0])
                    seg['wakeup->switch in, ' + where].append(t - wu[0])
                    local += where == 'local'
                    remote += where == 'remote'
                last[nxt, 'in'] = t
            if prev in pair and (prev, 'in') in last:
                seg['run (in->out)'].append(t - last[prev, 'in'])
        elif name == 'call_function_single_entry':
            ipis += 1
    print(f'{path}: pids {pair}, {len(seg["run (in->out)"])} runs')
    for name, v in seg.items():
        if v:
            print(f'  {name:26s} n={len(v):6d}  median {statistics.median(v):8.0f}'
                  f'  mean {statistics.mean(v):8.0f} ns')
    print(f'  wakeups: {local} local, {remote} remote; {ipis} function-call IPIs')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for report in sys.argv[1:]:
        analyse(report)
