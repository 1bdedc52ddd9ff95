#!/usr/bin/env python3
"""Scan a guest console log for signs that the kernel went wrong.

Usage: logscan.py [--before N] [--after N] [--quiet | --hits] LOG...

Looks for panics, BUG/WARNING/Oops reports, lockdep and RCU splats, KASAN and
UBSAN reports, hung tasks, RCU stalls and call traces. Prints every hit with
some lines of context and exits 1 if there was any, 0 if the log is clean,
2 if a log cannot be read.

--hits prints one line per hit instead: "TEST<TAB>LABEL<TAB>LINE", where TEST
is the test that was running (from the "saakm-suite: start NAME" / "end NAME"
markers the guest suite writes to /dev/kmsg) or "-" outside any test.
"""

import argparse
import re
import sys

# One entry per kind of report: (label, regex). The first matching label is
# shown next to the hit.
PATTERNS = [
    ("panic", r"Kernel panic - not syncing|\bkernel panic\b"),
    ("lockdep", r"possible circular locking dependency|inconsistent lock state"
                r"|possible recursive locking|suspicious RCU usage"
                r"|lock held when returning to user space|bad unlock balance"),
    ("BUG", r"\bBUG:"),
    ("WARNING", r"\bWARNING:"),
    ("Oops", r"\bOops\b"),
    ("KASAN", r"\bKASAN:"),
    ("UBSAN", r"\bUBSAN:"),
    ("hung task", r"\bhung_task\b|INFO: task \S+ blocked for more than"),
    ("RCU stall", r"rcu: INFO: .*detected stalls|rcu_.* self-detected stall"),
    ("call trace", r"\bCall Trace:"),
]

# Lines that match a pattern above but are not kernel reports.
BENIGN = [
    # virtme-ng's own notice when stdio cannot be passed to the guest
    r"^WARNING: stdin/stdout/stderr not accessible",
    # printed by the kernel when panic_on_warn etc. are merely configured
    r"panic_on_warn is (enabled|disabled)",
]

MARKER = re.compile(r"saakm-suite: (start|end) (\S+)")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
COMPILED = [(label, re.compile(p)) for label, p in PATTERNS]
OK = re.compile("|".join(BENIGN))


def clean(line):
    return ANSI.sub("", line).replace("\r", "").rstrip("\n")


def sections(lines):
    """Name of the test running at each line ("-" outside tests)."""
    cur, out = "-", []
    for line in lines:
        m = MARKER.search(line)
        if m:
            cur = m.group(2) if m.group(1) == "start" else "-"
        out.append(cur)
    return out


def scan(lines):
    """Return a list of (index, label) for every reportable line."""
    hits = []
    for i, line in enumerate(lines):
        if OK.search(line) or MARKER.search(line):
            continue
        for label, rx in COMPILED:
            if rx.search(line):
                hits.append((i, label))
                break
    return hits


def report(path, lines, hits, before, after, limit=120):
    """Print hits with context, merging overlapping windows."""
    labels = sorted({label for _, label in hits})
    print(f"logscan: {path}: {len(hits)} suspicious line(s): {', '.join(labels)}")
    shown = 0
    last_end = -1
    hit_at = {i: label for i, label in hits}
    for i, _ in hits:
        start = max(i - before, last_end + 1)
        end = min(len(lines) - 1, i + after)
        if start > end:
            continue
        if last_end >= 0 and start > last_end + 1:
            print("logscan:   ...")
        for j in range(start, end + 1):
            mark = ">>" if j in hit_at else "  "
            print(f"logscan: {mark} {lines[j]}")
            shown += 1
            if shown >= limit:
                print(f"logscan:   (output cut at {limit} lines, see {path})")
                return
        last_end = end


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--before", type=int, default=2, help="lines before a hit")
    ap.add_argument("--after", type=int, default=12, help="lines after a hit")
    ap.add_argument("--quiet", action="store_true", help="only the exit status")
    ap.add_argument("--hits", action="store_true",
                    help="one line per hit: test, label, line")
    args = ap.parse_args()

    status = 0
    for path in args.logs:
        try:
            with open(path, errors="replace") as f:
                lines = [clean(l) for l in f]
        except OSError as e:
            print(f"logscan: {path}: {e.strerror}", file=sys.stderr)
            status = max(status, 2)
            continue
        hits = scan(lines)
        if hits:
            status = max(status, 1)
            if args.hits:
                where = sections(lines)
                for i, label in hits:
                    print(f"{where[i]}\t{label}\t{lines[i]}")
            elif not args.quiet:
                report(path, lines, hits, args.before, args.after)
    return status


if __name__ == "__main__":
    sys.exit(main())
