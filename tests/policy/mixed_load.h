/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mixed_load.h - the mixed load for the host tests of fair-share
 * policies (include after policy_test.h): tasks with random nice values,
 * each spinning 1-10 ms and sleeping 0-20 ms, on all simulated CPUs. At
 * the end, what each task got is compared with its fair share: weighted
 * water-filling, shares proportional to weight, each capped by the task's
 * demand (spin / (spin + sleep)), the total capped by the CPUs.
 */
#ifndef MIXED_LOAD_H
#define MIXED_LOAD_H

/* libusim's, declared here: the driver sees the uapi header, not <linux/saakm.h>. */
unsigned int saakm_nice_weight(int nice);

#define ML_MAX	512

/**
 * struct mixed_load - one run
 * @n: tasks (pids 1..n, at most ML_MAX)
 * @nice_lo, @nice_hi: range of the random nice values
 * @end_ns: how long the load runs
 * @seed: for srand()
 * @starved: out: tasks that got less than half their fair share
 * @worst: out: the lowest fraction of its fair share a task got
 */
struct mixed_load {
	int n, nice_lo, nice_hi;
	unsigned long long end_ns;
	unsigned int seed;
	int starved;
	double worst;
};

/* Fair shares of @n tasks of weights @w and demands @d on @cpus CPUs. */
static inline void ml_shares(int n, const double *w, const double *d, double cpus,
			     double *share)
{
	double lo = 0, hi = 1, mid, total, sum = 0;
	int i, k;

	for (i = 0; i < n; i++)
		sum += d[i];
	if (sum < cpus)
		cpus = sum;
	for (k = 0; k < 200; k++) {	/* the level: share_i = min(d_i, level * w_i) */
		mid = (lo + hi) / 2;
		for (total = 0, i = 0; i < n; i++)
			total += d[i] < mid * w[i] ? d[i] : mid * w[i];
		*(total < cpus ? &lo : &hi) = mid;
	}
	for (i = 0; i < n; i++)
		share[i] = d[i] < hi * w[i] ? d[i] : hi * w[i];
}

/* Run @ml on the world started by the caller (all its CPUs online). */
static inline void mixed_load_run(struct mixed_load *ml)
{
	static double w[ML_MAX], d[ML_MAX], share[ML_MAX];
	static unsigned long long spin[ML_MAX], nap[ML_MAX], left[ML_MAX], wake_at[ML_MAX];
	unsigned long long now, step = 100000;	/* 0.1 ms */
	int i, cpu, pid, nice, cpus = uc_nr_cpus();
	double got;

	srand(ml->seed);
	ml->starved = 0;
	ml->worst = 1e9;
	for (i = 0; i < ml->n; i++) {
		nice = ml->nice_lo + rand() % (ml->nice_hi - ml->nice_lo + 1);
		w[i] = saakm_nice_weight(nice);
		spin[i] = (1 + rand() % 10) * 1000000ULL;
		nap[i] = (rand() % 21) * 1000000ULL;
		d[i] = (double)spin[i] / (spin[i] + nap[i]);
		left[i] = spin[i];
		EXPECT(uc_fork(i + 1, 0, 0, nice) == 0);
	}
	ml_shares(ml->n, w, d, cpus, share);
	for (now = 0; now < ml->end_ns && !uc_failure(); now += step) {
		EXPECT(uc_advance(step) == 0);
		for (i = 0; i < ml->n; i++)
			if (!uc_runnable(i + 1) && now >= wake_at[i]) {
				EXPECT(uc_wake(i + 1) == 0);
				left[i] = spin[i];
			}
		for (cpu = 0; cpu < cpus; cpu++) {
			pid = uc_curr(cpu);
			if (pid <= 0)
				continue;
			i = pid - 1;
			if (left[i] > step) {
				left[i] -= step;
			} else if (nap[i]) {	/* the burst is over: sleep */
				EXPECT(uc_block(pid) == 0);
				wake_at[i] = now + nap[i];
			} else {
				left[i] = spin[i];
			}
		}
	}
	for (i = 0; i < ml->n; i++) {
		got = (double)uc_runtime(i + 1) / ml->end_ns / share[i];
		ml->starved += got < 0.5;
		if (got < ml->worst)
			ml->worst = got;
	}
}

#endif /* MIXED_LOAD_H */
