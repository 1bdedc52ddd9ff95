// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM runqueues: FIFO, ordered list and rbtree (enum saakm_rq_kind).
 *
 * saakm_change_state() (saakm_state.c) and, in a live upgrade,
 * saakm_rq_adopt() are the only callers of saakm_rq_insert() and
 * saakm_rq_remove(), so a task is in a runqueue exactly while it is READY.
 * The callers hold the lock that protects the runqueue.
 *
 * This file needs only <linux/saakm.h> and the list and rbtree code: libusim
 * (tools/usim) compiles it as it is, so policies tested and replayed on the
 * host see the kernel's runqueues, not a copy of them.
 */
#include <linux/saakm.h>
#include "saakm_rq.h"

/* Insert @p in @rq: the caller holds the lock that protects @rq. */
void saakm_rq_insert(struct saakm_rq *rq, struct task_struct *p)
{
	struct rb_node **link = &rq->root.rb_root.rb_node, *parent = NULL;
	struct task_struct *q;
	bool leftmost = true;

	switch (rq->kind) {
	case SAAKM_RQ_FIFO:
		list_add_tail(&p->saakm.node, &rq->list);
		break;
	case SAAKM_RQ_LIST:
		/* Before the first task @p must run ahead of: FIFO among equals. */
		list_for_each_entry(q, &rq->list, saakm.node)
			if (rq->less(p, q))
				break;
		list_add_tail(&p->saakm.node, &q->saakm.node);
		break;
	case SAAKM_RQ_RBTREE:
		while (*link) {
			parent = *link;
			q = rb_entry(parent, struct task_struct, saakm.rb);
			if (rq->less(p, q)) {
				link = &parent->rb_left;
			} else {
				link = &parent->rb_right;
				leftmost = false;
			}
		}
		rb_link_node(&p->saakm.rb, parent, link);
		rb_insert_color_cached(&p->saakm.rb, &rq->root, leftmost);
		break;
	}
	p->saakm.queue = rq;
	WRITE_ONCE(rq->nr, rq->nr + 1);
}

/* Take @p off the runqueue it is in. */
void saakm_rq_remove(struct task_struct *p)
{
	struct saakm_rq *rq = p->saakm.queue;

	if (rq->kind == SAAKM_RQ_RBTREE) {
		rb_erase_cached(&p->saakm.rb, &rq->root);
		RB_CLEAR_NODE(&p->saakm.rb);
	} else {
		list_del_init(&p->saakm.node);
	}
	p->saakm.queue = NULL;
	WRITE_ONCE(rq->nr, rq->nr - 1);
}

/*
 * An upgrade's import (saakm_upgrade.c, and libusim's): whether one runs,
 * the upgrade's number, and the tasks saakm_rq_adopt() moved in it.
 */
static bool saakm_rq_importing;
static unsigned int saakm_rq_gen;
unsigned int saakm_rq_adopted;

/* An upgrade's import starts: saakm_rq_adopt() is allowed, and counted. */
void saakm_rq_import_begin(void)
{
	saakm_rq_gen++;
	saakm_rq_adopted = 0;
	saakm_rq_importing = true;
}

void saakm_rq_import_end(void)
{
	saakm_rq_importing = false;
}

/*
 * After an import: is @p READY in a runqueue that no runqueue of the new
 * version adopted (still the old version's)?
 */
bool saakm_rq_left_behind(const struct task_struct *p)
{
	const struct saakm_rq *q = p->saakm.queue;

	return q && q->adopt_gen != saakm_rq_gen;
}

/**
 * saakm_rq_init - initialize a policy runqueue
 * @rq: the runqueue
 * @kind: %SAAKM_RQ_FIFO, %SAAKM_RQ_LIST or %SAAKM_RQ_RBTREE
 * @less: order of @kind LIST and RBTREE (tasks that compare equal keep their
 *	arrival order); ignored for FIFO
 * @cpu: the CPU the runqueue serves, or -1 for a runqueue shared by CPUs
 */
void saakm_rq_init(struct saakm_rq *rq, enum saakm_rq_kind kind,
		   saakm_less_fn less, int cpu)
{
	rq->kind = kind;
	rq->less = less;
	rq->nr = 0;
	rq->cpu = cpu;
	INIT_LIST_HEAD(&rq->list);
	rq->root = RB_ROOT_CACHED;
	rq->adopt_gen = 0;
	WARN_ON_ONCE(kind != SAAKM_RQ_FIFO && !less);
}
EXPORT_SYMBOL_GPL(saakm_rq_init);

/**
 * saakm_rq_first - the task at the head of a runqueue
 * @rq: the runqueue, locked
 *
 * Return: the first task (oldest for FIFO, smallest for ordered runqueues),
 * or NULL if @rq is empty. The task stays queued.
 */
struct task_struct *saakm_rq_first(struct saakm_rq *rq)
{
	struct rb_node *node;

	if (rq->kind != SAAKM_RQ_RBTREE)
		return list_first_entry_or_null(&rq->list, struct task_struct,
						saakm.node);
	node = rb_first_cached(&rq->root);
	return node ? rb_entry(node, struct task_struct, saakm.rb) : NULL;
}
EXPORT_SYMBOL_GPL(saakm_rq_first);

/**
 * saakm_rq_next - the task after @p in a runqueue
 * @rq: the runqueue, locked
 * @p: a task queued in @rq
 *
 * Return: the next task in order, or NULL after the last one.
 */
struct task_struct *saakm_rq_next(struct saakm_rq *rq, struct task_struct *p)
{
	struct rb_node *node;

	if (rq->kind != SAAKM_RQ_RBTREE) {
		if (list_is_last(&p->saakm.node, &rq->list))
			return NULL;
		return list_next_entry(p, saakm.node);
	}
	node = rb_next(&p->saakm.rb);
	return node ? rb_entry(node, struct task_struct, saakm.rb) : NULL;
}
EXPORT_SYMBOL_GPL(saakm_rq_next);

/* Move every task of FIFO @old to the tail of FIFO @rq, in order. */
static unsigned int saakm_rq_take_fifo(struct saakm_rq *rq, struct saakm_rq *old)
{
	unsigned int n = 0;
	struct task_struct *p;

	list_for_each_entry(p, &old->list, saakm.node) {
		p->saakm.queue = rq;
		n++;
	}
	list_splice_tail_init(&old->list, &rq->list);
	WRITE_ONCE(rq->nr, rq->nr + n);
	WRITE_ONCE(old->nr, 0);
	return n;
}

/**
 * saakm_rq_adopt - take over the tasks of an old version's runqueue
 * @rq: a runqueue of the new version
 * @old: the runqueue of the old version that held them
 *
 * For upgrade_import() only. FIFO into FIFO keeps the tasks' order;
 * otherwise each task is inserted into @rq by @rq's order, which keeps
 * the order of an ordered runqueue whose order did not change. The tasks
 * stay READY on their CPUs. Refused, with a kernel log message, outside an
 * import, for a runqueue that already adopted in this upgrade, and for
 * runqueues of two different CPUs.
 *
 * Context: upgrade_import(): every CPU stopped.
 *
 * Return: the number of tasks moved.
 */
unsigned int saakm_rq_adopt(struct saakm_rq *rq, struct saakm_rq *old)
{
	unsigned int n = 0;
	struct task_struct *p;

	if (!saakm_rq_importing || old == rq || old->adopt_gen == saakm_rq_gen ||
	    (rq->cpu >= 0 && old->cpu >= 0 && rq->cpu != old->cpu)) {
		pr_err("saakm: %s() refused: %s\n", __func__,
		       !saakm_rq_importing ? "not in upgrade_import()" :
		       old->cpu != rq->cpu ? "runqueues of two CPUs" :
		       "that runqueue is the new version's");
		return 0;
	}
	if (rq->kind == SAAKM_RQ_FIFO && old->kind == SAAKM_RQ_FIFO) {
		n = saakm_rq_take_fifo(rq, old);
	} else {
		while ((p = saakm_rq_first(old))) {
			saakm_rq_remove(p);
			saakm_rq_insert(rq, p);
			n++;
		}
	}
	rq->adopt_gen = saakm_rq_gen;
	saakm_rq_adopted += n;
	return n;
}
EXPORT_SYMBOL_GPL(saakm_rq_adopt);
