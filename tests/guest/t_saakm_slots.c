// SPDX-License-Identifier: GPL-2.0
/*
 * Rolling reloads do not run out of policy slots. Two
 * policies (fifo, and faulty with no fault armed) take turns so that one is
 * always loaded: load fifo, then 100 rounds of "load the other one, unload
 * the older one". There are never more than two policies, so every load
 * must succeed; before the fix the slot number only grew and a load failed
 * with ENOSPC after 64 registrations.
 */
#include "saakm_test.h"

SAAKM_TAG("timeout=300");

#define ROUNDS	100

static const struct {
	const char *name, *module, *path;
} pols[2] = {
	{ "fifo", "saakm_fifo", "policies/fifo/saakm_fifo.ko" },
	{ "faulty", "saakm_faulty", "tests/modules/saakm_faulty/saakm_faulty.ko" },
};

static void cleanup(void)
{
	for (int i = 0; i < 2; i++)
		if (module_loaded(pols[i].module))
			unload_module_within(pols[i].module, 10, NULL);
}

int main(void)
{
	int round, ret, cur = 0, maxid = 0;
	char why[256] = "";

	atexit(cleanup);
	ret = module_load(pols[0].path, NULL);
	TAP_CHECK(ret == 0 && policy_id(pols[0].name) > 0, "fifo loaded");
	if (ret)
		return tap_done();

	for (round = 1; round <= ROUNDS; round++) {
		int next = !cur, id;

		ret = module_load(pols[next].path, NULL);
		id = policy_id(pols[next].name);
		if (ret || id <= 0) {
			snprintf(why, sizeof(why), "round %d: loading %s failed: %s (id %d)",
				 round, pols[next].name, ret ? strerror(-ret) : "no policy", id);
			break;
		}
		if (id > maxid)
			maxid = id;
		ret = unload_module_within(pols[cur].module, 10, NULL);
		if (ret) {
			snprintf(why, sizeof(why), "round %d: unloading %s failed: %s", round,
				 pols[cur].name, strerror(-ret));
			break;
		}
		cur = next;
	}
	printf("# %d of %d rounds, last policy id %d\n", round - 1, ROUNDS, maxid);
	if (round > ROUNDS)
		tap_ok("100 alternating loads and unloads with one policy always loaded");
	else
		tap_not_ok("100 alternating loads and unloads with one policy always loaded",
			   "%s", why);
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
