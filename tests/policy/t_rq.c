// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the kernel's runqueues, kernel/src/kernel/sched/saakm/
 * saakm_rq.c, which libusim compiles as it is: FIFO order; ordered list and
 * rbtree order by a less function, arrival order among equals; removal
 * from the head, the middle and the tail; 10,000 tasks with random keys
 * inserted, then drained in order; the counts (nr, saakm_rq_len()) and the
 * task's queue pointer after every step; an ordered runqueue without a less
 * function is a WARN.
 *
 * This file is compiled like a policy (it sees the kernel's <linux/saakm.h>
 * and the class's saakm_rq.h), so it cannot use policy_test.h, whose enums
 * come from the uapi header; it uses TAP directly.
 */
#include <linux/saakm.h>
#include <stdlib.h>
#include "saakm_rq.h"
#include "tap.h"
#include "usim.h"

#define BIG	10000

/* A task's key lives in its per-task data word. */
static unsigned long key(struct task_struct *p)
{
	return (unsigned long)*saakm_task_data(p);
}

static bool by_key(struct task_struct *a, struct task_struct *b)
{
	return key(a) < key(b);
}

static struct task_struct *task(int pid, unsigned long k)
{
	struct task_struct *p = usim_task(pid);

	*saakm_task_data(p) = (void *)k;
	return p;
}

/* The pids of @rq in order, as "1 2 3"; also checks nr against the walk. */
static const char *order(struct saakm_rq *rq)
{
	static char buf[512];
	struct task_struct *p;
	unsigned int n = 0;
	size_t len = 0;

	buf[0] = '\0';
	saakm_rq_for_each(p, rq) {
		len += snprintf(buf + len, sizeof(buf) - len, "%s%d", n ? " " : "", p->pid);
		n++;
		if (len >= sizeof(buf))
			break;
	}
	if (n != rq->nr || n != saakm_rq_len(rq))
		return "nr does not match the walk";
	return buf;
}

static void check_order(struct saakm_rq *rq, const char *want, const char *desc)
{
	const char *got = order(rq);

	if (strcmp(got, want))
		printf("#   got \"%s\", want \"%s\"\n", got, want);
	TAP_CHECK(!strcmp(got, want), desc);
}

static void t_fifo(void)
{
	struct saakm_rq rq;
	int pid;

	saakm_rq_init(&rq, SAAKM_RQ_FIFO, NULL, 0);
	TAP_CHECK(!saakm_rq_first(&rq) && rq.nr == 0 && rq.cpu == 0, "FIFO: empty after init");
	for (pid = 1; pid <= 5; pid++)
		saakm_rq_insert(&rq, task(pid, 10 - pid));	/* keys ignored */
	check_order(&rq, "1 2 3 4 5", "FIFO: arrival order, keys ignored");
	TAP_CHECK(usim_task(3)->saakm.queue == &rq, "FIFO: a queued task points to its runqueue");
	saakm_rq_remove(usim_task(3));
	TAP_CHECK(!usim_task(3)->saakm.queue, "FIFO: a removed task points to none");
	check_order(&rq, "1 2 4 5", "FIFO: removal from the middle");
	saakm_rq_remove(usim_task(1));
	saakm_rq_remove(usim_task(5));
	check_order(&rq, "2 4", "FIFO: removal of the head and the tail");
	saakm_rq_insert(&rq, usim_task(3));
	saakm_rq_insert(&rq, usim_task(1));
	check_order(&rq, "2 4 3 1", "FIFO: a task inserted again goes to the tail");
}

/* The same sequence for both ordered kinds. */
static void t_ordered(enum saakm_rq_kind kind, const char *name)
{
	static const unsigned long keys[] = { 5, 1, 3, 1, 5, 2, 3, 1 };
	struct saakm_rq rq;
	char desc[128];
	unsigned int i;

	saakm_rq_init(&rq, kind, by_key, -1);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		saakm_rq_insert(&rq, task(i + 1, keys[i]));
	snprintf(desc, sizeof(desc), "%s: by key, arrival order among equals", name);
	check_order(&rq, "2 4 8 6 3 7 1 5", desc);
	snprintf(desc, sizeof(desc), "%s: first is the smallest key, the oldest of them", name);
	TAP_CHECK(saakm_rq_first(&rq) == usim_task(2), desc);
	saakm_rq_remove(usim_task(6));		/* the middle */
	saakm_rq_remove(usim_task(2));		/* the head */
	saakm_rq_remove(usim_task(5));		/* the tail */
	snprintf(desc, sizeof(desc), "%s: removal from the head, the middle and the tail", name);
	check_order(&rq, "4 8 3 7 1", desc);
	saakm_rq_insert(&rq, task(2, 3));	/* equal to 3 and 7: after them */
	saakm_rq_insert(&rq, task(5, 0));
	snprintf(desc, sizeof(desc), "%s: re-inserted tasks take their place by key", name);
	check_order(&rq, "5 4 8 3 7 2 1", desc);
}

static unsigned long long rng = 88172645463325252ULL;

static unsigned long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 10,000 tasks with random keys (many equal), drained from the head: in order. */
static void t_big(enum saakm_rq_kind kind, const char *name)
{
	struct saakm_rq rq;
	struct task_struct *p, *prev = NULL;
	unsigned int n = 0, bad = 0, counts_ok = 1;
	char desc[128];
	int pid;

	saakm_rq_init(&rq, kind, by_key, 3);
	for (pid = 1; pid <= BIG; pid++) {
		saakm_rq_insert(&rq, task(pid, rnd() % 1000));
		counts_ok &= rq.nr == (unsigned int)pid;
	}
	while ((p = saakm_rq_first(&rq))) {
		/* non-decreasing keys; among equals, the lower (older) pid first */
		if (prev && (key(prev) > key(p) || (key(prev) == key(p) && prev->pid > p->pid)))
			bad++;
		saakm_rq_remove(p);
		counts_ok &= rq.nr == (unsigned int)(BIG - ++n) && !p->saakm.queue;
		prev = p;
	}
	snprintf(desc, sizeof(desc), "%s: %d random keys drained in order (%u out of order)",
		 name, BIG, bad);
	TAP_CHECK(n == BIG && !bad, desc);
	snprintf(desc, sizeof(desc), "%s: nr right after each of the %d inserts and removals",
		 name, 2 * BIG);
	TAP_CHECK(counts_ok && saakm_rq_len(&rq) == 0, desc);
}

/* libusim's errors (a WARN in the kernel code), shown as TAP comments. */
static void on_error(void *ctx, const char *msg)
{
	printf("#   libusim: %s\n", msg);
}

/* An ordered runqueue needs a less function: the kernel WARNs, libusim reports it. */
static void t_no_less(void)
{
	struct saakm_rq rq;
	int before = usim_error_count();

	saakm_rq_init(&rq, SAAKM_RQ_FIFO, NULL, 0);
	TAP_CHECK(usim_error_count() == before, "FIFO without a less function: fine");
	saakm_rq_init(&rq, SAAKM_RQ_RBTREE, NULL, 0);
	TAP_CHECK(usim_error_count() == before + 1, "RBTREE without a less function: WARN");
}

int main(void)
{
	printf("# the kernel's runqueues (kernel/src/kernel/sched/saakm/saakm_rq.c) on the host\n");
	usim_setup(4, &(struct usim_hooks){ .error = on_error });
	t_fifo();
	t_ordered(SAAKM_RQ_LIST, "LIST");
	t_ordered(SAAKM_RQ_RBTREE, "RBTREE");
	t_big(SAAKM_RQ_LIST, "LIST");
	t_big(SAAKM_RQ_RBTREE, "RBTREE");
	t_no_less();
	return tap_done();
}
