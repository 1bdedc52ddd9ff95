// SPDX-License-Identifier: GPL-2.0
/*
 * Load/unload churn: two threads each load the FIFO policy, move worker
 * tasks onto it and unload it again, SAAKM_CYCLES times (make test: 200,
 * 20 on the debug kernel; make test-full: 1,000 and 100),
 * racing each other while hackbench runs under fifo whenever it is loaded.
 * The workers must all survive, end in SCHED_NORMAL, and the log stay clean.
 */
#include "saakm_test.h"
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#define NR_WORKERS 16

static pid_t workers[NR_WORKERS];
static int cycles = 200;
static const char *ko_path;

struct churn {
	int loaded, unloaded, busy;
};

static void *churn(void *arg)
{
	struct churn *c = arg;

	for (int i = 0; i < cycles; i++) {
		int fd = open(ko_path, O_RDONLY | O_CLOEXEC), id;

		if (fd >= 0 && !syscall(SYS_finit_module, fd, "", 0)) {
			c->loaded++;
			id = policy_id("fifo");
			for (int w = 0; w < NR_WORKERS && id > 0; w++)
				saakm_join(workers[w], id, 0);
		} else {
			c->busy++;
		}
		if (fd >= 0)
			close(fd);
		if (!syscall(SYS_delete_module, "saakm_fifo", O_NONBLOCK))
			c->unloaded++;
	}
	return NULL;
}

/* hackbench under fifo when it is loaded, plain otherwise, until stopped. */
static int hackbench_loop(long unused __attribute__((unused)))
{
	char cmd[512];
	const char *root = getenv("SAAKM_ROOT");
	int runs = 0;

	snprintf(cmd, sizeof(cmd), "%s/build/tools/saakm run -p fifo -- hackbench -g 1 -l 20 >/dev/null 2>&1 || hackbench -g 1 -l 20 >/dev/null",
		 root ? root : ".");
	while (!*stop) {
		if (system(cmd))
			return 1;
		runs++;
	}
	return runs ? 0 : 1;
}

int main(void)
{
	static char path[512];
	struct churn c[2] = { 0 };
	pthread_t th[2];
	pid_t hb;
	int ok;

	cycles = tier_size("SAAKM_CYCLES", debug_pass() ? 20 : 200, debug_pass() ? 100 : 1000);
	snprintf(path, sizeof(path), "%s/policies/fifo/saakm_fifo.ko",
		 getenv("SAAKM_ROOT") ? getenv("SAAKM_ROOT") : ".");
	ko_path = path;
	stop_init();
	/* the churn threads load it with finit_module(): unload it at cleanup */
	if (!module_loaded("saakm_fifo"))
		saakm_track_module(path);

	for (int w = 0; w < NR_WORKERS; w++)
		workers[w] = spawn(sleeper, 5000);
	hb = spawn(hackbench_loop, 0);
	for (int t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, churn, &c[t]);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	printf("# %d cycles per thread: loads %d+%d, unloads %d+%d, refused loads %d+%d\n",
	       cycles, c[0].loaded, c[1].loaded, c[0].unloaded, c[1].unloaded,
	       c[0].busy, c[1].busy);
	/*
	 * How often each thread finds the module free depends on timing (and
	 * concurrent loads of one file are merged by the kernel): ask for an
	 * eighth of the attempts to have gone through.
	 */
	TAP_CHECK(c[0].loaded + c[1].loaded >= cycles / 4,
		  "the policy was loaded many times (an eighth of the attempts or more)");
	TAP_CHECK(c[0].unloaded + c[1].unloaded >= cycles / 4,
		  "the policy was unloaded many times (an eighth of the attempts or more)");
	TAP_CHECK(policy_id("fifo") < 0, "fifo is not loaded at the end");

	ok = 1;
	for (int w = 0; w < NR_WORKERS; w++)
		ok &= sched_getscheduler(workers[w]) == SCHED_OTHER;
	TAP_CHECK(ok, "all workers are alive and in SCHED_NORMAL");
	*stop = 1;
	TAP_CHECK(reaped_ok(hb), "hackbench ran throughout and never failed");
	ok = 1;
	for (int w = 0; w < NR_WORKERS; w++)
		ok &= reaped_ok(workers[w]);
	TAP_CHECK(ok, "all workers finish");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
