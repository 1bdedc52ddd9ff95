# Guest shapes: named CPU topologies that tests and benchmarks boot, each laid
# out as a real machine of its kind shows it. Sourced by scripts/vm.sh and
# tests/run.sh on the host, and by guest tests that check the layout.
#
#   name   vCPUs  sockets  dies/socket  cores/die  threads/core  NUMA nodes
#   llc4     4       1          2           2           1            1
#   epyc8    8       2          2           2           1            2
#   smt16   16       2          2           2           2            2
#
# QEMU shares the L3 among the cores of a die (for a GenuineIntel CPU: see
# vm.sh), so a die is an LLC: llc4 has
# 2 LLCs, epyc8 4 (2 per socket, like an EPYC's core complexes), smt16 4 of
# 4 threads. QEMU numbers vCPUs thread first, then core, die and socket;
# with more than one node, each socket is a node.
# shellcheck shell=sh

SAAKM_SHAPES="llc4 epyc8 smt16"

# saakm_shape NAME: print "CPUS SOCKETS DIES CORES THREADS NODES"; false for
# a name that is not a shape.
saakm_shape() {
	case $1 in
	llc4) echo "4 1 2 2 1 1" ;;
	epyc8) echo "8 2 2 2 1 2" ;;
	smt16) echo "16 2 2 2 2 2" ;;
	*) return 1 ;;
	esac
}
