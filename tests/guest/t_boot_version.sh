#!/bin/sh
# The guest runs the kernel we built: 6.12.x with the -saakm local version.
. "$(dirname "$0")/lib.sh"

rel=$(uname -r)
diag "uname -r: $rel"
case $rel in
6.12.*) ok "kernel version is 6.12.x" ;;
*) not_ok "kernel version is 6.12.x" "got $rel" ;;
esac
case $rel in
*-saakm) ok "local version is -saakm" ;;
*) not_ok "local version is -saakm" "got $rel" ;;
esac
done_testing
