// SPDX-License-Identifier: GPL-2.0
/*
 * The watchdog must end its walk when a policy's task list empties under it
 * (it once livelocked). The walk counts down the
 * number of tasks it read at its start, a batch of them per hold of the
 * policy's lock, and gives the CPU up between batches. If every task left
 * in such a gap, the old walk found the list empty with tasks still to
 * count and spun, holding saakm_mutex, until a task joined the policy
 * again: with none joining, no policy could load or unload.
 *
 * The watchdog's work item runs on CPU 0 (unbound work items are kept
 * there) with a 25 ms period (the stall timeout is 100 ms). The test, as a
 * SCHED_FIFO task on CPU 0, moves NR_KIDS sleeping children into fifo,
 * sleeps up to 100 us (the watchdog, a fair task, gets CPU 0 and walks
 * them: a walk of NR_KIDS takes longer than that), and wakes up: the
 * watchdog then gives CPU 0 back at the end of its batch, and the test
 * moves every child out before it runs again. Then, with no task in fifo,
 * a child of the test reads /sys/kernel/saakm/record, which takes
 * saakm_mutex: it must be done within MUTEX_S. Rounds go on for ROUNDS_S
 * seconds; a walk that starts while the children are in is caught between
 * two batches. At the end, fifo must unload within UNLOAD_S.
 */
#include "saakm_test.h"

#define MOVER_CPU	0
#define KIDS_CPU	1
#define NR_KIDS		1024	/* 32 batches of the watchdog's 32 */
#define ROUNDS_S	10.0
#define UNLOAD_S	20.0
#define STALL_MS	100	/* a watchdog walk every 25 ms */
#define MUTEX_S		2.0

/*
 * The children block on a pipe until the test closes its end: they must not
 * wake during the rounds. Children that slept a second at a time woke
 * together, since they started together, and on the debug kernel the burst
 * of 1,024 wakeups queued in fifo on one CPU for longer than the 100 ms
 * stall timeout, which ejected a correct policy.
 */
static int kids_pipe[2];

static int blocked_kid(long unused __attribute__((unused)))
{
	char c;

	close(kids_pipe[1]);
	return read(kids_pipe[0], &c, 1) == 0 ? 0 : 1;
}

/* Sleep @us microseconds; the test runs as RT, so the wakeup is prompt. */
static void nap_us(long us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = us * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * Is saakm_mutex free within @secs? A child reads a file whose show()
 * takes it. A child still blocked after @secs is left to the caller, in
 * *@child, to reap once the mutex is free; 0 if none.
 */
static int mutex_free_within(double secs, pid_t *child)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char buf[16];
		int fd = open("/sys/kernel/saakm/record", O_RDONLY | O_CLOEXEC);

		_exit(fd >= 0 && read(fd, buf, sizeof(buf)) > 0 ? 0 : 1);
	}
	*child = 0;
	if (pid < 0)
		return 1;	/* cannot tell: not the watchdog's fault */
	if (reap_within(pid, secs, &status) == 0)
		return 1;
	*child = pid;
	return 0;
}

/* SCHED_FIFO on @cpu, so that waking up preempts the watchdog there. */
static int become_mover(int cpu)
{
	struct sched_param sp = { .sched_priority = 10 };

	return pin_to(0, cpu) || sched_setscheduler(0, SCHED_FIFO, &sp) ? -1 : 0;
}

int main(void)
{
	struct sched_param normal = { .sched_priority = 0 };
	int id, i, rounds = 0, join_err = 0, leave_err = 0, err, status;
	pid_t kids[NR_KIDS], blocked = 0;
	double t0, secs = 0;

	stop_init();
	require_cpus(2, "the watchdog survives its task list emptying mid-walk");
	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	TAP_CHECK(id > 0, "fifo loaded");
	if (id <= 0)
		return tap_done();
	TAP_CHECK(watchdog_on_cpu(MOVER_CPU, STALL_MS) == 0,
		  "the watchdog on CPU 0, stall timeout 100 ms");

	if (pipe2(kids_pipe, O_CLOEXEC)) {
		tap_not_ok("a pipe for the children", "%s", strerror(errno));
		return tap_done();
	}
	for (i = 0; i < NR_KIDS; i++) {
		kids[i] = spawn(blocked_kid, 0);
		pin_to(kids[i], KIDS_CPU);
	}
	TAP_CHECK(become_mover(MOVER_CPU) == 0, "the test runs SCHED_FIFO on CPU 0");

	srand(getpid());
	for (t0 = now_s(); now_s() < t0 + ROUNDS_S; rounds++) {
		for (i = 0; i < NR_KIDS; i++)
			join_err += saakm_join(kids[i], id, 0) != 0;
		nap_us(rand() % 100);
		for (i = 0; i < NR_KIDS; i++)
			leave_err += saakm_leave(kids[i]) != 0;
		if (!mutex_free_within(MUTEX_S * timeout_scale(), &blocked))
			break;
	}
	sched_setscheduler(0, SCHED_OTHER, &normal);
	printf("# %d rounds of %d joins and leaves\n", rounds, NR_KIDS);
	if (!blocked) {
		tap_ok("saakm_mutex free after every round");
	} else {
		tap_not_ok("saakm_mutex free after every round",
			   "still held %.0f s after round %d, with no task in fifo",
			   MUTEX_S * timeout_scale(), rounds + 1);
		/* a task that joins lets the old walk end: then clean up */
		saakm_join(kids[0], id, 0);
		reap_within(blocked, 10, &status);
		saakm_leave(kids[0]);
	}
	if (!join_err && !leave_err)
		tap_ok("every join and leave succeeded");
	else
		tap_not_ok("every join and leave succeeded", "%d joins and %d leaves failed",
			   join_err, leave_err);
	TAP_CHECK(policy_tasks("fifo") == 0, "fifo has no task left");
	TAP_CHECK(policy_enabled("fifo"), "fifo still enabled");

	close(kids_pipe[1]);
	for (i = 0; i < NR_KIDS; i++)
		reaped_ok(kids[i]);
	err = unload_module_within("saakm_fifo", UNLOAD_S * timeout_scale(), &secs);
	if (!err)
		tap_ok("fifo unloads: the watchdog finished its walks");
	else
		tap_not_ok("fifo unloads: the watchdog finished its walks", "%s after %.1f s",
			   err == -ETIMEDOUT ? "still running" : strerror(-err), secs);
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
