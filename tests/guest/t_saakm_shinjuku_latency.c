// SPDX-License-Identifier: GPL-2.0
/*
 * Microsecond preemption: a CPU-bound spinner and a short
 * sleeper-waker share one CPU. The waker sleeps 500 µs (absolute timer,
 * 1 ns timer slack), then does 20 µs of work. Under shinjuku with
 * slice_us=50 its wakeup finds the spinner past its slice and preempts it;
 * fifo (20 ms slices, no wakeup preemption) lets the spinner run on.
 *
 * What is asserted moves less with the host's load than guest time does,
 * though not entirely (below). A TCG guest's clock is the host's, so a
 * vCPU thread the host deschedules stretches every wait in guest time, and
 * the kernel's own count of the waker's wait (run_delay in
 * /proc/self/schedstat, from its enqueue to the switch that runs it) had a
 * p99 of 3 ms next to a kernel build, over the 1 ms
 * (docs/benchmarks.md, "Shinjuku on a slow machine"). What the policy
 * decides is which task runs while the waker waits, so the test counts the
 * spinner's work in that wait: the spinner stamps every turn of its loop
 * into a ring, and after each wakeup the waker counts the spinner's turns
 * stamped since its enqueue (run_delay back from now, and not before the
 * timer's target) up to the moment it ran, in µs at the spinner's pace
 * (its mean time per turn in the run). A descheduled vCPU does no turns,
 * but a timer QEMU delivers late while the vCPU runs is spinner work.
 * Checks:
 * - shinjuku: p99 of that work <= 1 ms (the figure), CPU 1 never
 *   idle (a wait spent idle would not show in the spinner's work), the
 *   spinner still gets most of the CPU;
 * - fifo, same run, same measure: p99 > 2 ms (its slice is 20 ms), and
 *   shinjuku's p99 <= a quarter of fifo's: the measure sees a policy that
 *   does not preempt (so does shinjuku with slice_us=20000: docs/benchmarks.md).
 * Printed, not asserted: the wait in guest time (run_delay; over 1 ms at
 * p99 with the host holding the vCPU for under 1% of the run), the share
 * of the run in which the host paused the spinner, and the spinner's work
 * while the waker, preempted after it ran, waited again; how many waits had
 * over 500 µs of the spinner's work, and CPU 1's hrtimer retries and hangs
 * (/proc/timer_list).
 * EEVDF runs the same, printed. Also: slice_us=0 and slice_us=1 are refused
 * at load time with a message naming the parameter, and a bad write to the
 * sysfs parameter is refused.
 */
#include "saakm_test.h"
#include <limits.h>
#include <sys/prctl.h>

SAAKM_TAG("timeout=180");
/*
 * Opt-in, so the ordinary passes leave it out: make test runs it in an
 * icount guest of its own (ICOUNT_TESTS in tests/all.sh), where it passed 5
 * runs of 5 with the same figures each time (2026-11-23). In a plain TCG
 * guest it passed 5 of 7: in about 1% of the wakeups (21% on a loaded
 * host) the spinner ran on for 0.5-10 ms of its own work, mostly after a
 * timer QEMU delivered late (docs/benchmarks.md, "Shinjuku on a slow
 * machine"); at p99 that was sometimes over the bound.
 */
SAAKM_TAG("opt-in");

#define SAMPLES		4000
#define SLEEP_NS	500000LL
#define RUN_S		4.0		/* per policy, at most */
#ifndef SLICE_US
#define SLICE_US	"50"
#endif
#define RING		(1 << 21)	/* spinner stamps kept: 20 ms of fifo's wait at 10 ns a turn */
#define GAP_NS		200000LL	/* a longer pause of the spinner is the waker's or the host's */
#define MAX_GAPS	65536
#define BOUND_NS	1000000LL	/* the 1 ms */
#define SHINJUKU_KO	"policies/shinjuku/saakm_shinjuku.ko"
#define SLICE_PARAM	"/sys/module/saakm_shinjuku/parameters/slice_us"

/* Shared with the children. */
struct shared {
	int cpu, id;
	volatile int spin_joined, wake_joined;
	volatile long long spun;		/* turns of the spinner's loop */
	long long ngaps, gap_from[MAX_GAPS], gap_to[MAX_GAPS];	/* the spinner's pauses */
	int n;
	long long target[SAMPLES];	/* the waker's timer */
	long long cycle_end[SAMPLES];	/* the waker about to sleep again */
	long long lat_ns[SAMPLES];	/* from the target to the waker in user space */
	long long klat_ns[SAMPLES];	/* counted by the kernel: run_delay */
	long long turns[SAMPLES];	/* the spinner's turns while the waker waited */
	long long turns_after[SAMPLES];	/* ... and after it ran, before it counted them */
	long long ring[RING];		/* the spinner's turn i stamped at ring[i % RING] */
};

static struct shared *sh;

/* Percentiles of one measure, in ns; -1 where not measured. */
struct pct {
	long long p50, p99, max;
};

/* One policy's run. */
struct result {
	int n;
	struct pct work, klat, user;	/* the spinner's work in the wait, run_delay, user space */
	struct pct after;		/* the spinner's work after the waker ran, before it counted */
	double spin_share, idle_share, host_share, turn_ns;
	long long hangs, retries;	/* of CPU @cpu's hrtimer interrupt in the run */
	int slow, slow_after;		/* waits with over 500 µs of the spinner's work */
	int late, slow_late;		/* timers 450 µs late or more; of them slow */
};

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin, stamping each turn; a pause over GAP_NS is noted (the host's or the waker's). */
static int spin_child(long unused __attribute__((unused)))
{
	int ret = pin_to(0, sh->cpu);
	long long n = 0, t, prev, end;

	if (!ret && sh->id)
		ret = saakm_join(0, sh->id, 0);
	sh->spin_joined = ret ? ret : 1;
	if (ret)
		return 1;
	prev = mono_ns();
	end = prev + (long long)((2 * RUN_S + 10) * 1e9);
	while (!*stop && prev < end) {
		t = mono_ns();
		if (t - prev > GAP_NS && sh->ngaps < MAX_GAPS) {
			sh->gap_from[sh->ngaps] = prev;
			sh->gap_to[sh->ngaps++] = t;
		}
		sh->ring[n % RING] = t;
		sh->spun = ++n;
		prev = t;
	}
	return 0;
}

/* Index of the spinner's first kept turn stamped at @t or later (stamps only grow). */
static long long turn_at(long long t)
{
	long long n = sh->spun, lo = n > RING ? n - RING : 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sh->ring[mid % RING] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The caller's time waiting runnable so far (ns), from schedstat open as @fd; -1. */
static long long run_delay(int fd)
{
	char buf[128];
	long long run, delay;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return sscanf(buf, "%lld %lld", &run, &delay) == 2 ? delay : -1;
}

/*
 * Sleep to an absolute deadline; once running, note how late, how long the
 * kernel had it waiting, and how many turns the spinner made since the
 * enqueue; do 20 µs of work.
 */
static int wake_child(long unused __attribute__((unused)))
{
	int ret = pin_to(0, sh->cpu), fd = open("/proc/self/schedstat", O_RDONLY | O_CLOEXEC);
	long long target, waited, now, k, from;
	struct timespec ts;
	double end;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (!ret && sh->id)
		ret = saakm_join(0, sh->id, 0);
	sh->wake_joined = ret ? ret : 1;
	if (ret || fd < 0)
		return 1;
	end = now_s() + RUN_S;
	while (sh->n < SAMPLES && now_s() < end) {
		waited = run_delay(fd);
		now = mono_ns();
		if (sh->n)
			sh->cycle_end[sh->n - 1] = now;
		target = now + SLEEP_NS;
		ts.tv_sec = target / 1000000000LL;
		ts.tv_nsec = target % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		now = mono_ns();
		k = run_delay(fd) - waited;
		sh->target[sh->n] = target;
		sh->lat_ns[sh->n] = now - target;
		sh->klat_ns[sh->n] = k;
		/*
		 * Enqueued at now - k or later (the switch came before now), not
		 * before the target; the spinner is off the CPU while this runs.
		 */
		from = turn_at(now - k > target ? now - k : target);
		sh->turns[sh->n] = turn_at(now) - from;
		sh->turns_after[sh->n] = sh->spun - from - sh->turns[sh->n];
		sh->cycle_end[sh->n++] = LLONG_MAX;
		spin_for(0.00002);
	}
	if (sh->n)
		sh->cycle_end[sh->n - 1] = mono_ns();
	close(fd);
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Percentiles of @v[@n] (sorted in place), times @scale. */
static struct pct percentiles(long long *v, int n, double scale)
{
	struct pct p = { -1, -1, -1 };

	if (n <= 0)
		return p;
	qsort(v, n, sizeof(*v), cmp_ll);
	p.p50 = v[n / 2] * scale;
	p.p99 = v[n * 99 / 100] * scale;
	p.max = v[n - 1] * scale;
	return p;
}

/*
 * The spinner's time per turn (ns) while it ran: the mean gap between its
 * kept stamps, leaving out pauses over 20 µs (interrupts, the waker, the host).
 */
static double turn_ns(void)
{
	long long n = sh->spun, i = n > RING ? n - RING : 0, d, sum = 0, m = 0;

	for (i++; i < n; i++) {
		d = sh->ring[i % RING] - sh->ring[(i - 1) % RING];
		if (d <= 20000) {
			sum += d;
			m++;
		}
	}
	return m ? (double)sum / m : 0;
}

/*
 * The part of the waker's run in which the spinner paused for over GAP_NS
 * outside the waker's cycles (from its timer's target to its next sleep):
 * the host had the vCPU, or the kernel did something long.
 */
static double host_share(void)
{
	long long from = sh->target[0] - SLEEP_NS, to = sh->cycle_end[sh->n - 1], lost = 0;
	int g, c = 0;

	for (g = 0; g < sh->ngaps; g++) {
		if (sh->gap_to[g] <= from || sh->gap_from[g] >= to)
			continue;
		while (c < sh->n && sh->cycle_end[c] <= sh->gap_from[g])
			c++;
		if (c < sh->n && sh->target[c] < sh->gap_to[g])
			continue;	/* the waker's cycle c lies in the pause */
		lost += sh->gap_to[g] - sh->gap_from[g];
	}
	return to > from ? (double)lost / (to - from) : 1;
}

/*
 * CPU @cpu's hrtimer interrupt so far (/proc/timer_list): the times it
 * found timers expired again on its way out (*@retries), and the times it
 * gave up after three such rounds (*@hangs), which defers every hrtimer
 * of the CPU for as long as the interrupt took. 0, or -1.
 */
static int timer_hangs(int cpu, long long *hangs, long long *retries)
{
	char line[256];
	FILE *f = fopen("/proc/timer_list", "r");
	int c = -1, found = 0;

	*hangs = *retries = -1;
	while (f && fgets(line, sizeof(line), f) && found < 2) {
		if (sscanf(line, "cpu: %d", &c) == 1)
			continue;
		if (c == cpu)
			found += sscanf(line, " .nr_hangs : %lld", hangs) == 1 ||
				 sscanf(line, " .nr_retries : %lld", retries) == 1;
	}
	if (f)
		fclose(f);
	return found == 2 ? 0 : -1;
}

/* Idle time of CPU @cpu so far (USER_HZ ticks, idle + iowait); -1. */
static long long cpu_idle(int cpu)
{
	long long v[5], idle = -1;
	char line[512];
	FILE *f = fopen("/proc/stat", "r");
	int c;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu%d %lld %lld %lld %lld %lld", &c, &v[0], &v[1], &v[2], &v[3],
			   &v[4]) == 6 && c == cpu)
			idle = v[3] + v[4];
	if (f)
		fclose(f);
	return idle;
}

/*
 * The spinner, then the waker, on one CPU under policy @id (0: the fair
 * class); the figures into @r. 0, or -1 on failure.
 */
static int run(const char *name, int id, struct result *r)
{
	long long spun, idle, hangs, retries;
	pid_t spin, wake;
	int status, i;
	double t0;

	memset(r, 0, sizeof(*r));
	r->work.p99 = r->klat.p99 = -1;
	sh->id = id;
	sh->n = 0;
	sh->spun = sh->ngaps = 0;
	sh->spin_joined = sh->wake_joined = 0;
	*stop = 0;
	spin = spawn(spin_child, 0);
	while (!sh->spin_joined)
		usleep(1000);
	usleep(50000);			/* the spinner owns the CPU */
	spun = task_runtime_ns(spin);
	idle = cpu_idle(sh->cpu);
	timer_hangs(sh->cpu, &hangs, &retries);
	t0 = now_s();
	wake = spawn(wake_child, 0);
	if (reap_within(wake, RUN_S + 30, &status) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("# %s: the waker failed (joined %d)\n", name, sh->wake_joined);
		*stop = 1;
		reaped_ok(spin);
		return -1;
	}
	r->spin_share = (task_runtime_ns(spin) - spun) / 1e9 / (now_s() - t0);
	r->idle_share = (cpu_idle(sh->cpu) - idle) / (double)sysconf(_SC_CLK_TCK) / (now_s() - t0);
	if (!timer_hangs(sh->cpu, &r->hangs, &r->retries) && hangs >= 0) {
		r->hangs -= hangs;
		r->retries -= retries;
	}
	*stop = 1;
	if (!reaped_ok(spin) || sh->spin_joined != 1 || sh->n < 100) {
		printf("# %s: spinner joined %d, %d samples\n", name, sh->spin_joined, sh->n);
		return -1;
	}
	r->n = sh->n;
	r->turn_ns = turn_ns();
	for (i = 0; i < sh->n; i++) {
		r->slow += sh->turns[i] * r->turn_ns > 500000;
		r->late += sh->lat_ns[i] - sh->klat_ns[i] >= 450000;
		r->slow_late += sh->lat_ns[i] - sh->klat_ns[i] >= 450000 &&
				sh->turns[i] * r->turn_ns > 500000;
		r->slow_after += sh->turns_after[i] * r->turn_ns > 500000;
	}
	r->host_share = host_share();
	r->work = percentiles(sh->turns, sh->n, r->turn_ns);
	r->klat = percentiles(sh->klat_ns, sh->n, 1);
	r->user = percentiles(sh->lat_ns, sh->n, 1);
	r->after = percentiles(sh->turns_after, sh->n, r->turn_ns);
	printf("# %-22s %4d wakeups; while the waker waited, the spinner worked p50 %5lld us, p99 %5lld us, max %6lld us (%.0f ns a turn)\n",
	       name, r->n, r->work.p50 / 1000, r->work.p99 / 1000, r->work.max / 1000, r->turn_ns);
	printf("#   wake-to-run (run_delay) p50 %5lld us, p99 %5lld us, max %6lld us; from the timer's target to user space p50 %5lld, p99 %6lld us\n",
	       r->klat.p50 / 1000, r->klat.p99 / 1000, r->klat.max / 1000, r->user.p50 / 1000,
	       r->user.p99 / 1000);
	printf("#   spinner %3.0f%% of the CPU, CPU idle %.1f%%, spinner paused by the host %.1f%% (%lld pauses over %lld us)\n",
	       r->spin_share * 100, r->idle_share * 100, r->host_share * 100, sh->ngaps,
	       GAP_NS / 1000);
	printf("#   the waker preempted after it ran (not asserted): the spinner worked p99 %lld us, max %lld us before it ran again\n",
	       r->after.p99 / 1000, r->after.max / 1000);
	printf("#   waits with over 500 us of the spinner's work: %d to run (%d of the %d whose timer came 450 us late or more), %d after running; CPU %d's hrtimer interrupt: %lld hangs, %lld retries\n",
	       r->slow, r->slow_late, r->late, r->slow_after, sh->cpu, r->hangs, r->retries);
	return 0;
}

/* Load shinjuku with @params: it must fail with EINVAL and log why. */
static void refused_at_load(const char *params)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), found = 0, ret;
	char rec[1024];
	ssize_t n;

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	ret = module_load(SHINJUKU_KO, params);
	while (fd >= 0 && (n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0 && errno == EPIPE)
			continue;
		if (n < 0)
			break;
		rec[n] = 0;
		found |= strstr(rec, "saakm_shinjuku: slice_us=") &&
			 strstr(rec, "refused: allowed 5..1000000");
	}
	if (fd >= 0)
		close(fd);
	if (!ret)
		unload_module("saakm_shinjuku");
	TAP_CHECKF(ret == -EINVAL && found, "%s refused at load (EINVAL), the log names slice_us and its range",
	       params);
}

/* A write of @val to the loaded module's slice_us: 0 or -errno. */
static int write_slice(const char *val)
{
	int fd = open(SLICE_PARAM, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The parameter checks: refused at load, refused in sysfs. @id: shinjuku loaded. */
static void param_checks(int id)
{
	char buf[32] = "";
	int fd;

	TAP_CHECK(id > 0, "shinjuku loaded with slice_us=" SLICE_US);
	TAP_CHECK(write_slice("0") == -EINVAL && write_slice("4") == -EINVAL,
		  "a sysfs write of slice_us 0 or 4 is refused (EINVAL)");
	fd = open(SLICE_PARAM, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	if (fd >= 0)
		close(fd);
	TAP_CHECK(!strcmp(buf, SLICE_US "\n"), "slice_us still reads " SLICE_US);
}

/*
 * The time the kernel counted, printed: with the host holding the vCPU for
 * under 1% of the run it still had a p99 of 1,065 µs, where the spinner's
 * work in the same waits had 176 µs (docs/benchmarks.md).
 */
static void print_klat(const struct result *sj)
{
	printf("# not asserted: shinjuku's wake-to-run p99 in guest time (run_delay) %lld us, the issue's target 1 ms; the host held the vCPU for %.1f%% of the run\n",
	       sj->klat.p99 / 1000, sj->host_share * 100);
}

int main(void)
{
	struct result sj = { 0 }, fair, fifo = { 0 };
	int id, ok_sj = -1, ok_fifo = -1;

	stop_init();
	sh = shared_mem(sizeof(*sh));
	sh->cpu = nr_cpus() > 1 ? 1 : 0;

	refused_at_load("slice_us=0");
	refused_at_load("slice_us=1");

	id = load_policy("shinjuku", SHINJUKU_KO, "slice_us=" SLICE_US);
	param_checks(id);
	if (id > 0)
		ok_sj = run("shinjuku slice_us=" SLICE_US ":", id, &sj);
	TAP_CHECKF(!ok_sj, "shinjuku: the spinner and the waker ran on CPU %d", sh->cpu);
	TAP_CHECKF(!ok_sj && sj.work.p99 <= BOUND_NS,
	       "shinjuku: p99 of the spinner's work while the waker waited (%lld us) <= 1 ms",
	       sj.work.p99 / 1000);
	TAP_CHECKF(!ok_sj && sj.idle_share <= 0.02, "shinjuku: CPU %d idle %.1f%% of the run (<= 2%%)",
	       sh->cpu, sj.idle_share * 100);
	TAP_CHECKF(!ok_sj && sj.spin_share >= 0.5, "shinjuku: the spinner still got most of the CPU (%.0f%%)",
	       sj.spin_share * 100);
	TAP_CHECK(event_count("shinjuku", "preempt") > 0, "shinjuku: preemptions through preempt()");
	print_events("shinjuku");
	if (!ok_sj)
		print_klat(&sj);
	TAP_CHECK(unload_module("saakm_shinjuku") == 0, "rmmod saakm_shinjuku");

	/* The same in the same run: the fair class (EEVDF), printed, and fifo. */
	run("EEVDF (no SaaKM):", 0, &fair);
	id = load_policy("fifo", "policies/fifo/saakm_fifo.ko", "");
	if (id > 0)
		ok_fifo = run("fifo slice_ms=20:", id, &fifo);
	TAP_CHECKF(!ok_fifo && fifo.work.p99 > 2 * BOUND_NS,
	       "fifo (no preemption): the same measure's p99 (%lld us) > 2 ms", fifo.work.p99 / 1000);
	TAP_CHECKF(!ok_sj && !ok_fifo && sj.work.p99 * 4 <= fifo.work.p99,
	       "shinjuku's p99 (%lld us) <= a quarter of fifo's (%lld us)", sj.work.p99 / 1000,
	       fifo.work.p99 / 1000);
	TAP_CHECK(unload_module("saakm_fifo") == 0, "rmmod saakm_fifo");
	TAP_CHECK(saakm_log_clean(), "no SaaKM error in the kernel log");
	return tap_done();
}
