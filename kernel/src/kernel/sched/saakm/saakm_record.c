// SPDX-License-Identifier: GPL-2.0
/*
 * SaaKM recorder: while /sys/kernel/saakm/record names a policy, every call
 * the class makes into it, and everything the policy decides or reads from
 * the kernel during the call, becomes a record, numbered in one order per
 * policy. "saakm record" reads them from /proc/saakm/record_buf
 * once recording stops, and "saakm replay" feeds the calls to a user-space
 * build of the same policy source and checks its decisions against them.
 * Record kinds and fields are in <uapi/linux/saakm_replay.h>.
 *
 * Records are written where the class calls the policy: with rq locks held,
 * interrupts off, from hard irq too. So each CPU writes into an array of its
 * own, allocated when recording starts: a slot is taken with one local
 * increment (safe against an interrupt on the same CPU), the record is
 * written in place, and nothing else is shared but the policy's seq counter.
 * A full array drops the record but still counts it, and its seq number
 * stays unused: the recording shows the gap and the number dropped. A
 * callback's first STATE and its RET go into its CALL's slot (struct
 * saakm_rec_slot), which "saakm record" unfolds, and only the CALL is
 * timed: the call's other records are ordered by their seq and happen
 * within microseconds. So most calls cost one slot and one clock read,
 * written inline where the class calls the policy (saakm_record.h);
 * the rest come here. (Through a trace event, each record cost some 750
 * instructions, and a call two or three records.)
 *
 * Off, recording costs one static branch per call into a policy.
 */
#include <linux/proc_fs.h>
#include <linux/vmalloc.h>
#include <asm/local.h>
#include "saakm_record.h"

DEFINE_PER_CPU(struct saakm_rec_cpu, saakm_rec_cpu);

/* On while a policy is recorded; policies test it in saakm_read_cpu(). */
DEFINE_STATIC_KEY_FALSE(saakm_recording_key);
EXPORT_SYMBOL_GPL(saakm_recording_key);

/* The recorded policy, or NULL; under saakm_mutex. */
static struct saakm_policy *saakm_recorded;

/* Size of each CPU's array of the next recording; under saakm_record_mutex. */
static unsigned long saakm_rec_buf_kb = SAAKM_REC_BUF_KB;
/* The policy recorded last, for readers of the arrays. */
static int saakm_rec_last_id;

/* Write record @seq in a slot of its own, timed unless it is within a call. */
static void saakm_rec_slot(struct saakm_rec_cpu *rc, u64 seq, enum saakm_rec_kind kind,
			   int ev, int cpu, struct task_struct *p, int a, int b, u64 c)
{
	struct saakm_rec_slot *r = saakm_rec_take(rc, seq, kind, ev, cpu, p);

	if (!r)
		return;
	r->a = a;
	r->b = b;
	r->c = c;
	r->ts_ns = rc->call ? 0 : saakm_rec_clock();
}

/**
 * __saakm_rec - write one record of the recorded policy @pol
 * @pol: a policy; nothing is recorded unless it is the recorded one
 * @kind: enum saakm_rec_kind
 * @ev: the callback (RET) or SAAKM_INPUT_* (INPUT)
 * @cpu: @kind-specific CPU
 * @p: the task, or NULL
 * @a: @kind-specific
 * @b: @kind-specific
 * @c: @kind-specific
 *
 * Any context, hard irq included; usually with the rq lock of the CPU
 * concerned held, or from a callback. The CALL, a call's first STATE and
 * its RET have shorter ways (saakm_record.h); this is the slot of the
 * others.
 */
void __saakm_rec(struct saakm_policy *pol, enum saakm_rec_kind kind, int ev,
		 int cpu, struct task_struct *p, int a, int b, u64 c)
{
	/* a writer is done within a grace period after recording stops */
	preempt_disable_notrace();
	if (READ_ONCE(pol->recording))
		saakm_rec_slot(this_cpu_ptr(&saakm_rec_cpu), atomic64_inc_return(&pol->rec_seq),
			       kind, ev, cpu, p, a, b, c);
	preempt_enable_notrace();
}

/*
 * An INPUT of @pol's that names no task: @val, which the policy read (@which,
 * about @cpu or -1), if a callback runs on this CPU (replay replays only
 * callbacks). Any context, hard irq included.
 */
void __saakm_rec_read(struct saakm_policy *pol, int which, int cpu, u64 val)
{
	preempt_disable_notrace();
	if (__this_cpu_read(saakm_ctx.ev) != SAAKM_NR_EVENTS)
		__saakm_rec(pol, SAAKM_REC_INPUT, which, -1, NULL, cpu, 0, val);
	preempt_enable_notrace();
}

/**
 * __saakm_read_cpu - record a value of CPU @cpu's state that @pol read unlocked
 * @pol: the policy that read it; nothing is recorded unless it is the recorded one
 * @cpu: the CPU whose state it is
 * @val: the value read
 *
 * saakm_read_cpu() calls it while some policy is recorded: an INPUT record
 * (SAAKM_INPUT_READ_CPU) of @pol's, if a callback runs on this CPU (replay
 * replays only callbacks). Any context, hard irq included.
 *
 * Return: @val.
 */
u64 __saakm_read_cpu(struct saakm_policy *pol, int cpu, u64 val)
{
	__saakm_rec_read(pol, SAAKM_INPUT_READ_CPU, cpu, val);
	return val;
}
EXPORT_SYMBOL_GPL(__saakm_read_cpu);

/**
 * __saakm_rec_ret - record the RET of callback @ev of @pol in a slot of its own
 * @pol: a policy; nothing is recorded unless it is the recorded one
 * @ev: the callback
 * @cpu: as given to its CALL
 * @p: as given to its CALL
 * @value: what it returned (saakm_rec_value()), 0 for a void callback
 * @seq: the RET's seq if already taken, else 0
 *
 * For a RET that saakm_rec_ret() could not fold into its CALL's slot: the
 * CALL was not recorded, or came more than U16_MAX records before.
 */
void __saakm_rec_ret(struct saakm_policy *pol, int ev, int cpu, struct task_struct *p,
		     int value, u64 seq)
{
	preempt_disable_notrace();
	if (seq || READ_ONCE(pol->recording))
		saakm_rec_slot(this_cpu_ptr(&saakm_rec_cpu),
			       seq ? seq : atomic64_inc_return(&pol->rec_seq),
			       SAAKM_REC_RET, ev, cpu, p, value, 0, 0);
	preempt_enable_notrace();
}

/**
 * __saakm_rec_state - record a STATE of @pol in a slot of its own
 * @pol: a policy; nothing is recorded unless it is the recorded one
 * @seq: its seq if already taken, else 0
 * @cpu: its cpu argument
 * @p: the task
 * @new: its new state
 * @rq: the rq's cpu, or -1
 * @old: its old state
 *
 * For a STATE that saakm_rec_state() could not fold into its call's slot:
 * not the call's first, or outside a recorded call, or too far from it.
 */
void __saakm_rec_state(struct saakm_policy *pol, u64 seq, int cpu, struct task_struct *p,
		       int new, int rq, int old)
{
	preempt_disable_notrace();
	if (seq || READ_ONCE(pol->recording))
		saakm_rec_slot(this_cpu_ptr(&saakm_rec_cpu),
			       seq ? seq : atomic64_inc_return(&pol->rec_seq),
			       SAAKM_REC_STATE, 0, cpu, p, new, rq, old);
	preempt_enable_notrace();
}

/*
 * Serialises switching the recorded policy, and the arrays' allocation
 * and reading. Taken before saakm_mutex, and held while the static key
 * flips (which takes the CPU hotplug lock): never under saakm_mutex.
 */
/* /sys/kernel/saakm/log_calls: log every policy call, rate-limited. */
DEFINE_STATIC_KEY_FALSE(saakm_log_calls_key);

void saakm_log_call(struct saakm_policy *pol, enum saakm_event ev, int cpu)
{
	saakm_printk_ratelimited(KERN_INFO "saakm: %s.%s cpu %d\n", pol->ops.name,
				 saakm_event_name(ev), cpu);
}

static DEFINE_MUTEX(saakm_record_mutex);

static void saakm_rec_free_bufs(void)
{
	int cpu;

	lockdep_assert_held(&saakm_record_mutex);
	for_each_possible_cpu(cpu) {
		struct saakm_rec_cpu *rc = per_cpu_ptr(&saakm_rec_cpu, cpu);

		vfree(rc->recs);
		rc->recs = NULL;
		rc->cap = 0;
		local_set(&rc->len, 0);
		rc->call = NULL;
	}
}

/*
 * Empty arrays of saakm_rec_buf_kb for every CPU, allocated if needed.
 * Nothing is recorded. Return: 0 or -ENOMEM (then there are none).
 */
static int saakm_rec_reset_bufs(void)
{
	unsigned long cap = saakm_rec_buf_kb * 1024 / sizeof(struct saakm_rec_slot);
	int cpu;

	lockdep_assert_held(&saakm_record_mutex);
	for_each_possible_cpu(cpu) {
		struct saakm_rec_cpu *rc = per_cpu_ptr(&saakm_rec_cpu, cpu);

		local_set(&rc->len, 0);
		rc->call = NULL;
		if (rc->recs && rc->cap == cap)
			continue;
		vfree(rc->recs);
		rc->cap = 0;
		/* zeroed: a slot's unused fields are never written */
		rc->recs = vzalloc_node(array_size(cap, sizeof(*rc->recs)), cpu_to_node(cpu));
		if (!rc->recs) {
			saakm_rec_free_bufs();
			return -ENOMEM;
		}
		rc->cap = cap;
	}
	return 0;
}

/* Stop recording, with saakm_mutex held; the caller waits for writers. */
static void saakm_rec_stop(void)
{
	lockdep_assert_held(&saakm_mutex);
	if (saakm_recorded)
		WRITE_ONCE(saakm_recorded->recording, false);
	saakm_recorded = NULL;
}

/* The registered policy of id @id, or NULL; saakm_mutex held. */
static struct saakm_policy *saakm_rec_find(int id)
{
	struct saakm_policy *pol;

	lockdep_assert_held(&saakm_mutex);
	list_for_each_entry(pol, &saakm_policies, list)
		if (pol->id == id)
			return pol;
	return NULL;
}

/* Start recording policy @id into emptied arrays. Return: 0 or -errno. */
static int saakm_rec_start(int id)
{
	struct saakm_policy *pol;
	int ret;

	ret = saakm_rec_reset_bufs();
	if (ret)
		return ret;
	mutex_lock(&saakm_mutex);
	/* it may have been unregistered while the arrays were set up */
	pol = saakm_rec_find(id);
	if (pol) {
		atomic64_set(&pol->rec_seq, 0);
		saakm_recorded = pol;
		saakm_rec_last_id = id;
		WRITE_ONCE(pol->recording, true);
	}
	mutex_unlock(&saakm_mutex);
	return pol ? 0 : -ENOENT;
}

/**
 * saakm_record_set - record policy @id from now on, or stop recording
 * @id: a registered policy's id, or 0 to stop
 *
 * Process context. Recording restarts @seq at 1 and empties the arrays
 * (allocating them if needed) before the first record. Once it returns,
 * everything recorded before is in the arrays.
 *
 * Return: 0, -ENOENT if no policy has that id, -ENOMEM if there is no
 * memory for the arrays.
 */
int saakm_record_set(int id)
{
	int ret = 0;

	mutex_lock(&saakm_record_mutex);
	mutex_lock(&saakm_mutex);
	if (id && !saakm_rec_find(id)) {
		mutex_unlock(&saakm_mutex);
		mutex_unlock(&saakm_record_mutex);
		return -ENOENT;
	}
	saakm_rec_stop();
	mutex_unlock(&saakm_mutex);

	/*
	 * Writers run with preemption off: after a grace period, none is
	 * still writing, and the arrays may be emptied or read.
	 */
	synchronize_rcu();
	if (id)
		ret = saakm_rec_start(id);

	if (id && !ret && !static_key_enabled(&saakm_recording_key))
		static_branch_enable(&saakm_recording_key);
	else if ((!id || ret) && static_key_enabled(&saakm_recording_key))
		static_branch_disable(&saakm_recording_key);
	mutex_unlock(&saakm_record_mutex);
	return ret;
}

/* The recorded policy's id, 0 if none. */
int saakm_record_get(void)
{
	int id;

	mutex_lock(&saakm_mutex);
	id = saakm_recorded ? saakm_recorded->id : 0;
	mutex_unlock(&saakm_mutex);
	return id;
}

/*
 * @pol is being unregistered, saakm_mutex held: stop recording it. The
 * static key stays on (a check of pol->recording per call) until the next
 * saakm_record_set().
 */
void saakm_record_forget(struct saakm_policy *pol)
{
	lockdep_assert_held(&saakm_mutex);
	if (saakm_recorded == pol)
		saakm_rec_stop();
}

/* A read of /proc/saakm/record_buf: a window on the stream of its parts. */
struct saakm_rec_reader {
	char __user	*ubuf;
	size_t		count;	/* bytes wanted */
	size_t		done;	/* bytes copied */
	loff_t		pos;	/* stream offset of the next byte to copy */
	loff_t		at;	/* stream offset of the next part */
};

/* Copy what the read wants of the next @len bytes of the stream, at @src. */
static int saakm_rec_read_part(struct saakm_rec_reader *rd, const void *src, size_t len)
{
	loff_t start = rd->at;
	size_t off, n;

	rd->at += len;
	if (rd->done == rd->count || rd->pos >= rd->at)
		return 0;
	off = rd->pos - start;
	n = min(len - off, rd->count - rd->done);
	if (copy_to_user(rd->ubuf + rd->done, src + off, n))
		return -EFAULT;
	rd->done += n;
	rd->pos += n;
	return 0;
}

/* Records @rc holds, and how many it dropped. */
static unsigned long saakm_rec_kept(struct saakm_rec_cpu *rc, unsigned long *dropped)
{
	unsigned long len = local_read(&rc->len);

	*dropped = len > rc->cap ? len - rc->cap : 0;
	return len - *dropped;
}

static void saakm_rec_buf_info(struct saakm_rec_buf_info *info)
{
	unsigned long dropped;
	int cpu;

	memset(info, 0, sizeof(*info));
	memcpy(info->magic, SAAKM_REC_BUF_MAGIC, sizeof(info->magic));
	info->rec_size = sizeof(struct saakm_rec_slot);
	info->nr_cpus = nr_cpu_ids;
	info->policy_id = saakm_rec_last_id;
	for_each_possible_cpu(cpu) {
		struct saakm_rec_cpu *rc = per_cpu_ptr(&saakm_rec_cpu, cpu);

		info->nr_records += saakm_rec_kept(rc, &dropped);
		info->dropped += dropped;
		if (rc->recs)
			info->buf_kb = saakm_rec_buf_kb;
	}
}

/* Read the last recording: a struct saakm_rec_buf_info, then each CPU's slots. */
static ssize_t saakm_rec_buf_read(struct file *file, char __user *ubuf, size_t count,
				  loff_t *ppos)
{
	struct saakm_rec_reader rd = { .ubuf = ubuf, .count = count, .pos = *ppos };
	struct saakm_rec_buf_info info;
	unsigned long dropped;
	int cpu, ret = 0;

	if (*ppos < 0)
		return -EINVAL;
	mutex_lock(&saakm_record_mutex);
	if (saakm_record_get()) {
		ret = -EBUSY;
		goto out;
	}
	/* a policy unregistered while recorded: its last writers are done */
	if (!*ppos)
		synchronize_rcu();
	saakm_rec_buf_info(&info);
	ret = saakm_rec_read_part(&rd, &info, sizeof(info));
	for_each_possible_cpu(cpu) {
		struct saakm_rec_cpu *rc = per_cpu_ptr(&saakm_rec_cpu, cpu);
		unsigned long n = saakm_rec_kept(rc, &dropped);

		if (ret || rd.done == rd.count)
			break;
		ret = saakm_rec_read_part(&rd, rc->recs, n * sizeof(*rc->recs));
	}
out:
	mutex_unlock(&saakm_record_mutex);
	if (ret)
		return ret;
	*ppos = rd.pos;
	return rd.done;
}

/* Free the arrays and, unless 0, set the KiB per CPU of the next recording. */
static ssize_t saakm_rec_buf_write(struct file *file, const char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	unsigned long kb;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &kb);
	if (ret)
		return ret;
	if (kb > SZ_16M || kb > ULONG_MAX / SZ_1K)
		return -EINVAL;
	mutex_lock(&saakm_record_mutex);
	if (saakm_record_get()) {
		ret = -EBUSY;
	} else {
		synchronize_rcu();
		saakm_rec_free_bufs();
		if (kb)
			saakm_rec_buf_kb = kb;
	}
	mutex_unlock(&saakm_record_mutex);
	return ret ? ret : count;
}

static const struct proc_ops saakm_rec_buf_ops = {
	.proc_read	= saakm_rec_buf_read,
	.proc_write	= saakm_rec_buf_write,
	.proc_lseek	= default_llseek,
};

/**
 * saakm_record_proc_init - create /proc/saakm/record_buf
 * @dir: /proc/saakm, which saakm_stats_init() made
 *
 * Return: 0 or -ENOMEM.
 */
int __init saakm_record_proc_init(struct proc_dir_entry *dir)
{
	return proc_create("record_buf", 0600, dir, &saakm_rec_buf_ops) ? 0 : -ENOMEM;
}
