#!/bin/sh
# fifo-lifo.sh DIR: write DIR/saakm_fifo.c, the FIFO policy with one line
# changed so that schedule() takes the last queued task instead of the
# first. A replay of a fifo recording against it must diverge at a pick.
# Used by the guest test saakm_record and by replay-prebuild.sh.
# Exit status 1 if the pattern no longer matches saakm_fifo.c.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$root/policies/fifo/saakm_fifo.c
mkdir -p "$1" || exit 1
sed 's/struct task_struct \*p = saakm_rq_first(rq_of(cpu));/struct task_struct *p = NULL, *q; saakm_rq_for_each(q, rq_of(cpu)) p = q;/' \
	"$src" >"$1/saakm_fifo.c" || exit 1
! cmp -s "$src" "$1/saakm_fifo.c"
