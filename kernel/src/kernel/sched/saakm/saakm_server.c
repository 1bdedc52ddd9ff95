// SPDX-License-Identifier: GPL-2.0
/*
 * The class's deadline server. SaaKM runs below every other class, so an
 * RT or deadline task that never sleeps would starve its tasks for ever,
 * and with them anyone waiting for a lock one of them holds. As the fair
 * class does with rq->fair_server, each CPU has a SCHED_DEADLINE entity
 * that runs SaaKM tasks for saakm_server_runtime_ns in every
 * saakm_server_period_ns when they did not get that much CPU by themselves
 * (it is deferred to the end of the period, so it costs nothing while the
 * class is not starved). Tunable in /sys/kernel/saakm/server_*_us.
 */
#include "saakm_server.h"

u64 saakm_server_runtime_ns = 50 * NSEC_PER_MSEC;
u64 saakm_server_period_ns = NSEC_PER_SEC;

/*
 * @rq's CPU leaves idle (saakm_set_idle(); rq locked, clock updated). SaaKM
 * tasks did not need that time: count it as runtime the server did not have
 * to give, as the fair class does for its own. Otherwise, after a period in
 * which SaaKM tasks mostly slept, the server got on the runqueue, and then
 * each sleep stopped it and each wakeup started it again until they had
 * used its runtime: 18% more instructions per round trip of a 2-CPU
 * ping-pong (docs/benchmarks.md, "The deadline server and idle time").
 */
void saakm_server_idle(struct rq *rq)
{
	struct sched_dl_entity *dl_se = &per_cpu(saakm_cpus, cpu_of(rq)).server;
	s64 delta = rq_clock_task(rq) - __this_cpu_read(saakm_idle_start);

	if (delta > 0 && dl_server_active(dl_se)) {
		trace_saakm_server_idle(cpu_of(rq), delta);
		dl_server_update_idle(dl_se, delta);
	}
}

/* Apply new server parameters on @cpu; process context. */
static int saakm_server_apply(int cpu, u64 runtime, u64 period)
{
	struct saakm_cpu *sc = &per_cpu(saakm_cpus, cpu);
	struct rq *rq = cpu_rq(cpu);
	struct rq_flags rf;
	int ret = 0;

	rq_lock_irqsave(rq, &rf);
	update_rq_clock(rq);
	if (sc->server.dl_server) {
		/* Stopping an inactive server would subtract its bandwidth twice. */
		if (dl_server_active(&sc->server))
			dl_server_stop(&sc->server);
		ret = dl_server_apply_params(&sc->server, runtime, period, 0);
		if (sc->nr_queued && runtime)
			dl_server_start(&sc->server);
	}
	rq_unlock_irqrestore(rq, &rf);
	return ret;
}

/**
 * saakm_server_set_params - set the SaaKM deadline server of every CPU
 * @runtime_ns: guaranteed runtime per period; 0 disables the server
 * @period_ns: period, 100 us to 4 s
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for values out of range, or -EBUSY if the deadline
 * bandwidth of a root domain cannot take the new share.
 */
int saakm_server_set_params(u64 runtime_ns, u64 period_ns)
{
	int cpu, ret = 0;

	if (period_ns < 100 * NSEC_PER_USEC || period_ns > 4 * NSEC_PER_SEC ||
	    runtime_ns > period_ns)
		return -EINVAL;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ret = saakm_server_apply(cpu, runtime_ns, period_ns);
		if (ret)
			break;
	}
	if (!ret) {
		WRITE_ONCE(saakm_server_runtime_ns, runtime_ns);
		WRITE_ONCE(saakm_server_period_ns, period_ns);
	}
	cpus_read_unlock();
	return ret;
}

/**
 * saakm_attach_root - account the server's bandwidth in a new root domain
 * @rq: a runqueue that moved to a new root domain, locked
 */
void saakm_attach_root(struct rq *rq)
{
	struct sched_dl_entity *dl_se = &per_cpu(saakm_cpus, cpu_of(rq)).server;

	if (dl_se->dl_server)
		__dl_server_attach_root(dl_se, rq);
}

/* Set up @cpu's server; @pick picks the task it runs, at boot. */
void saakm_server_init(int cpu, dl_server_pick_f pick)
{
	struct sched_dl_entity *dl_se = &per_cpu(saakm_cpus, cpu).server;

	init_dl_entity(dl_se);
	dl_server_init(dl_se, cpu_rq(cpu), pick);
}
