// SPDX-License-Identifier: GPL-2.0
/*
 * Seeded random stress of a SaaKM policy on the class simulation
 * (usim_class.h). Linked with one policy's unchanged source; every scenario
 * is a pure function of its seed:
 *
 *   1-16 CPUs, 1-32 tasks with random nice values and affinities. Each task
 *   runs a burst of CPU time (0.1-5 ms), sleeps (0-15 ms), wakes, and so on;
 *   meanwhile tasks yield, change affinity and nice, exit and are replaced,
 *   and CPUs go offline and come back. After 300 ms of that, 300 ms more
 *   without disturbances (longer than the stall timeout), every task is
 *   woken, and the module is unloaded.
 *
 * The class simulation checks its invariants after every operation: legal
 * transitions only, no task lost, no READY task waiting past the simulated
 * watchdog (250 ms), nothing left after unload. Each scenario runs in its
 * own process (fresh policy globals; a sanitizer report fails that seed).
 * On a failure it prints the seed, the failure and the last events, and
 * how to replay it.
 *
 *   stress [-s FIRST] [-n COUNT] [-j JOBS] [-P PARAMS]... [-p POLICY] [-T] [-L] [-k] [-v]
 *
 * -P may be given several times: each scenario picks one parameter set.
 * -p NAME[,NAME...]: the policy instances tasks join, one at random per task
 * (default: the first registered).
 * -T gives each scenario a random cache topology (1 or 2 CPUs per core,
 * 1-4 cores per LLC, 1 or 2 LLCs per NUMA node; otherwise one LLC), -L
 * checks the placements of a policy that promises cache locality (struct
 * uc_opts' check_llc: a task placed outside its LLC while a CPU there
 * idles fails the scenario).
 * -k keeps going after a failure. Prints one TAP line for the run; exit
 * status 0 if every scenario passed, 1 if one failed, 2 for usage errors.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "usim_class.h"

#define MS		1000000ULL
#define US		1000ULL
#define MAX_SETS	16
#define CHURN_NS	(300 * MS)	/* random disturbances */
#define SETTLE_NS	(300 * MS)	/* then only bursts and sleeps */
#define STALL_NS	(250 * MS)

static struct {
	const char *sets[MAX_SETS];
	int nr_sets;
	const char *policy;		/* as given: NAME[,NAME...] */
	char *policies[MAX_SETS];	/* tasks join one of these at random */
	int nr_policies;
	bool verbose;
	bool topology;			/* -T */
	bool check_llc;			/* -L */
	const char *argv0;
} opt;

/* xorshift64*, seeded through splitmix64 so that nearby seeds differ. */
static unsigned long long rng;

static unsigned long long rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned long long below(unsigned long long n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int per_mille)
{
	return below(1000) < per_mille;
}

static void seed_rng(unsigned long long seed)
{
	unsigned long long z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	rng = (z ^ (z >> 31)) | 1;
}

/* The workload's view of one task. */
struct wtask {
	int pid;			/* 0: slot unused */
	unsigned long long spawn_at;	/* not forked yet: when */
	unsigned long long burst;	/* CPU time per wakeup */
	unsigned long long ran_at_wake;	/* uc_runtime() when it last woke */
	unsigned long long wake_at;	/* asleep: when it wakes */
};

static struct wtask wt[32];
static int nr_wt, nr_cpus, next_pid;
static int smt, llc, node;		/* CPUs per core, LLC, node; 0: all */
static char topo[64];			/* the same, for messages */

static unsigned long long random_mask(void)
{
	unsigned long long all = nr_cpus == 64 ? ~0ULL : (1ULL << nr_cpus) - 1;
	unsigned long long m;

	if (chance(500))
		return 0;	/* all CPUs */
	do
		m = rnd() & all;
	while (!m);
	return m;
}

/* An online CPU in @mask (0: any), or -1 if there is none. */
static int random_online_cpu(unsigned long long mask)
{
	int cpu, n = 0, pick;

	for (cpu = 0; cpu < nr_cpus; cpu++)
		n += uc_online(cpu) && (!mask || (mask >> cpu & 1));
	if (!n)
		return -1;
	pick = below(n);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (uc_online(cpu) && (!mask || (mask >> cpu & 1)) && !pick--)
			break;
	return cpu;
}

static void new_burst(struct wtask *w)
{
	w->burst = 100 * US + below(4900 * US);
}

/* A new task, forked by a parent running on a CPU of its affinity. */
static void spawn(struct wtask *w, unsigned long long now)
{
	unsigned long long mask = random_mask();
	int cpu = random_online_cpu(mask);

	if (cpu < 0) {
		mask = 0;
		cpu = random_online_cpu(0);
	}
	w->pid = next_pid++;
	w->spawn_at = now;
	new_burst(w);
	uc_fork_in(opt.nr_policies ? opt.policies[below(opt.nr_policies)] : NULL, w->pid, cpu,
		   mask, (int)below(40) - 20);
	w->ran_at_wake = 0;
	w->wake_at = 0;
}

/* Running tasks that used their burst sleep; sleepers whose time came wake. */
static void workload_step(unsigned long long now)
{
	int i;

	for (i = 0; i < nr_wt && !uc_failure(); i++) {
		struct wtask *w = &wt[i];

		if (w->spawn_at > now)
			continue;
		if (!uc_exists(w->pid)) {
			spawn(w, now);
			continue;
		}
		if (uc_runnable(w->pid)) {
			if (uc_curr(uc_cpu_of(w->pid)) == w->pid &&
			    uc_runtime(w->pid) - w->ran_at_wake >= w->burst) {
				uc_block(w->pid);
				w->wake_at = now + below(15 * MS);
			}
		} else if (w->wake_at <= now) {
			w->ran_at_wake = uc_runtime(w->pid);
			new_burst(w);
			uc_wake(w->pid);
		}
	}
}

/* One random disturbance, sometimes. */
static void disturb(unsigned long long now)
{
	struct wtask *w = &wt[below(nr_wt)];
	int cpu = below(nr_cpus);

	if (!w->pid || !uc_exists(w->pid))
		return;
	if (chance(40) && uc_curr(uc_cpu_of(w->pid)) == w->pid)
		uc_yield(w->pid);
	else if (chance(30))
		uc_set_affinity(w->pid, random_mask() ?: ~0ULL);
	else if (chance(20))
		uc_set_nice(w->pid, (int)below(40) - 20);
	else if (chance(15) && uc_online(cpu))
		uc_cpu_down(cpu);		/* refused for the last CPU */
	else if (chance(25) && !uc_online(cpu))
		uc_cpu_up(cpu);
	else if (chance(8) && (uc_curr(uc_cpu_of(w->pid)) == w->pid || !uc_runnable(w->pid))) {
		uc_exit(w->pid);		/* replaced by a new task later */
		w->spawn_at = now + below(20 * MS);
	}
}

/* Run scenario @seed; 0 if every check held. */
static int scenario(unsigned long long seed)
{
	const char *params;
	unsigned long long now = 0;
	int i, ret;

	seed_rng(seed);
	nr_cpus = 1 + below(16);
	nr_wt = 1 + below(32);
	params = opt.nr_sets ? opt.sets[below(opt.nr_sets)] : NULL;
	next_pid = 1;
	memset(wt, 0, sizeof(wt));
	for (i = 0; i < nr_wt; i++)
		wt[i].spawn_at = below(50 * MS);
	smt = llc = node = 0;
	topo[0] = 0;
	if (opt.topology) {	/* drawn last: without -T, the scenarios are unchanged */
		smt = 1 + below(2);
		llc = smt * (1 + below(4));
		node = llc * (1 + below(2));
		snprintf(topo, sizeof(topo), ", cpus per core/llc/node %d/%d/%d", smt, llc, node);
	}
	if (opt.verbose)
		printf("# seed %llu: %d cpus%s, %d tasks, params \"%s\"\n", seed, nr_cpus, topo,
		       nr_wt, params ? params : "");
	ret = uc_start(&(struct uc_opts){ .nr_cpus = nr_cpus, .params = params,
					  .policy = opt.nr_policies ? opt.policies[0] : NULL,
					  .stall_ns = STALL_NS,
					  .smt = smt, .llc = llc, .node = node,
					  .check_llc = opt.check_llc,
					  .quiet = 1 });
	uc_trace("stress seed %llu: %d cpus%s, %d tasks, params \"%s\"", seed, nr_cpus, topo,
		 nr_wt, params ? params : "");
	while (!ret && !uc_failure() && now < CHURN_NS + SETTLE_NS) {
		unsigned long long dt = 100 * US + below(1900 * US);

		uc_advance(dt);
		now += dt;
		workload_step(now);
		if (now < CHURN_NS && chance(150))
			disturb(now);
	}
	for (i = 0; i < nr_wt && !uc_failure(); i++)
		if (wt[i].pid && uc_exists(wt[i].pid) && !uc_runnable(wt[i].pid))
			uc_wake(wt[i].pid);
	if (!uc_failure())
		uc_advance(10 * MS);
	if (!uc_failure())
		uc_unload();
	if (!uc_failure())
		return 0;
	printf("# seed %llu FAILED: %s\n", seed, uc_failure());
	printf("#   %d cpus%s, %d tasks, params \"%s\"; the last notable events:\n", nr_cpus,
	       topo, nr_wt, params ? params : "");
	uc_notable_dump(stdout);
	printf("#   the last events:\n");
	uc_trace_dump(stdout, 30);
	return 1;
}

/* The command that replays one seed, with this run's options. */
static void print_repro(unsigned long long seed)
{
	int i;

	printf("#   reproduce: %s -s %llu -n 1 -v", opt.argv0, seed);
	if (opt.policy)
		printf(" -p %s", opt.policy);
	if (opt.topology)
		printf(" -T");
	if (opt.check_llc)
		printf(" -L");
	for (i = 0; i < opt.nr_sets; i++)
		printf(" -P '%s'", opt.sets[i]);
	printf("\n");
}

struct job {
	pid_t pid;
	unsigned long long seed;
};

/* Wait for one child; return its seed, *failed set if it did not pass. */
static unsigned long long reap(struct job *jobs, int nr_jobs, bool *failed)
{
	int status, i;
	pid_t pid = wait(&status);

	for (i = 0; i < nr_jobs; i++) {
		if (jobs[i].pid == pid) {
			jobs[i].pid = 0;
			*failed = !WIFEXITED(status) || WEXITSTATUS(status);
			if (WIFSIGNALED(status))
				printf("# seed %llu FAILED: killed by signal %d\n", jobs[i].seed,
				       WTERMSIG(status));
			return jobs[i].seed;
		}
	}
	*failed = true;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: stress [-s FIRST] [-n COUNT] [-j JOBS] [-P PARAMS]... [-p POLICY] [-T] [-L] [-k] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long first = 1, count = 100, next, done = 0, failed_seed = 0;
	int jobs = 1, running = 0, nr_failed = 0, c, i;
	bool keep_going = false, failed;
	struct job slots[64] = { { 0 } };
	struct timespec t0, t1;
	double secs;

	opt.argv0 = argv[0];
	while ((c = getopt(argc, argv, "s:n:j:P:p:TLkv")) != -1) {
		switch (c) {
		case 's': first = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'j': jobs = atoi(optarg); break;
		case 'P':
			if (opt.nr_sets == MAX_SETS)
				usage();
			opt.sets[opt.nr_sets++] = optarg;
			break;
		case 'p':
			opt.policy = optarg;
			for (char *save = NULL, *tok = strtok_r(strdup(optarg), ",", &save);
			     tok && opt.nr_policies < MAX_SETS; tok = strtok_r(NULL, ",", &save))
				opt.policies[opt.nr_policies++] = tok;
			break;
		case 'T': opt.topology = true; break;
		case 'L': opt.check_llc = true; break;
		case 'k': keep_going = true; break;
		case 'v': opt.verbose = true; break;
		default: usage();
		}
	}
	if (optind != argc || jobs < 1 || jobs > 64 || !count)
		usage();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (next = first; next < first + count || running;) {
		if (next < first + count && running < jobs && (keep_going || !nr_failed)) {
			pid_t pid;

			fflush(stdout);
			pid = fork();
			if (pid < 0) {
				perror("fork");
				return 2;
			}
			if (pid == 0) {
				int rc = scenario(next);

				fflush(stdout);
				_exit(rc);
			}
			for (i = 0; !(slots[i].pid == 0); i++)
				;
			slots[i] = (struct job){ pid, next++ };
			running++;
			continue;
		}
		if (!running)
			break;
		{
			unsigned long long seed = reap(slots, jobs, &failed);

			running--;
			done++;
			if (failed) {
				if (!nr_failed++ || seed < failed_seed)
					failed_seed = seed;
				print_repro(seed);
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (nr_failed)
		printf("not ok 1 stress: %d of %llu scenarios failed (seeds %llu..%llu), first failing seed %llu, %.1f s\n",
		       nr_failed, done, first, first + count - 1, failed_seed, secs);
	else
		printf("ok 1 stress: %llu scenarios passed (seeds %llu..%llu) in %.1f s\n", done,
		       first, first + count - 1, secs);
	printf("1..1\n");
	return nr_failed ? 1 : 0;
}
