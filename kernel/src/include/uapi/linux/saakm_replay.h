/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SaaKM recordings: what user space needs to replay a policy's decisions.
 *
 * While a policy is recorded (/sys/kernel/saakm/record holds its id), the
 * class writes the records below into buffers of its own, one per CPU.
 * When recording stops, /proc/saakm/record_buf gives them back: a struct
 * saakm_rec_buf_info, then struct saakm_rec_slot, each CPU's in the order
 * it wrote them. "saakm record" reads them and writes a file: a struct
 * saakm_rec_header, then nr_records struct saakm_rec in seq order. "saakm replay" compiles the policy's source for user space,
 * feeds it every CALL in order and checks what it does against the
 * recording. The state machine every policy obeys is here too, so that the
 * kernel and the user-space replay check the same table.
 */
#ifndef _UAPI_LINUX_SAAKM_REPLAY_H
#define _UAPI_LINUX_SAAKM_REPLAY_H

#include <linux/types.h>

/*
 * Record kinds (enum saakm_rec_kind, SAAKM_REC_<NAME>): X(NAME, name).
 * Fields of struct saakm_rec by kind ("-" unused, set to -1 or 0):
 *
 *   kind   ev             cpu          pid   a          b         c
 *   CALL   callback       its cpu arg  task  dst (1)    task nice affinity (2)
 *   RET    callback       its cpu arg  task  value (3)  -         -
 *   STATE  -              cpu arg      task  new state  rq cpu    old state
 *   FORCE  -              task's cpu   task  new state  -         old state
 *   INPUT  input (4)      -            task  cpu (5)    -         value
 *   ERROR  -              -            -     -          -         -
 *
 * (1) balance_pick: dst (its cpu is src); every other callback: -1.
 * (2) bit n set: the task may run on CPU n (CPUs 0..63 only).
 * (3) the int a callback returned (a CPU), or the pid of the task it
 *     returned (-1 for NULL).
 * (4) SAAKM_INPUT_RUNNING_NS (saakm_running_ns()),
 *     SAAKM_INPUT_CAN_MIGRATE (saakm_can_migrate(), value 0 or 1),
 *     SAAKM_INPUT_EXEC_NS (saakm_exec_ns()) or
 *     SAAKM_INPUT_READ_CPU (saakm_read_cpu(): a value of another CPU's
 *     state the policy read without that CPU's lock; no task, pid -1) or
 *     SAAKM_INPUT_CLOCK (saakm_clock_ns(); no task, pid -1).
 * (5) can_migrate: its dst; read_cpu: the CPU whose state was read; else -1.
 *
 * Task callbacks without a CPU argument carry the task's CPU in cpu. Void
 * callbacks have a RET too, with a = 0. CALL comes before everything the
 * callback does, RET after it. STATE
 * records the policy's saakm_change_state() calls, FORCE the class's own
 * moves (a task joined while running, left the CPU, was boosted), which
 * replay applies without checking. ERROR: saakm_policy_error() or an
 * ejection; nothing after it is recorded.
 */
#define SAAKM_REC_KINDS(X)						\
	X(CALL, call)							\
	X(RET, ret)							\
	X(STATE, state)							\
	X(FORCE, force)							\
	X(INPUT, input)							\
	X(ERROR, error)

/* Kinds of INPUT records (SAAKM_INPUT_<NAME>): X(NAME, name). */
#define SAAKM_INPUTS(X)							\
	X(RUNNING_NS, running_ns)					\
	X(CAN_MIGRATE, can_migrate)					\
	X(EXEC_NS, exec_ns)						\
	X(READ_CPU, read_cpu)						\
	X(CLOCK, clock)

#define SAAKM_INPUT_ENUM(NAME, name) SAAKM_INPUT_##NAME,
enum saakm_input { SAAKM_INPUTS(SAAKM_INPUT_ENUM) SAAKM_NR_INPUTS };
#undef SAAKM_INPUT_ENUM

/**
 * struct saakm_rec - one record, as saved by "saakm record"
 * @seq: order among the policy's records, from 1; a gap means lost records
 * @ts_ns: when it was recorded: sched_clock(), in ns (on x86 with a
 *	stable TSC, CPUs agree, and it is local_clock() less a constant).
 *	Within a callback the kernel times only the CALL: "saakm record"
 *	gives the call's other records the CALL's time.
 * @c: kind-specific 64-bit value (see above)
 * @pid: the task, or -1
 * @a: kind-specific
 * @b: kind-specific
 * @cpu: kind-specific CPU, or -1
 * @kind: enum saakm_rec_kind
 * @ev: enum saakm_event for CALL and RET, SAAKM_INPUT_* for INPUT
 * @on_cpu: the CPU that emitted the record. Callbacks on one CPU never
 *	nest, so the STATE, INPUT and RET records of a call are the ones
 *	with its @on_cpu between its CALL and its RET; calls on other CPUs
 *	may interleave with them in @seq order.
 * @pad: zero
 */
struct saakm_rec {
	__u64 seq;
	__u64 ts_ns;
	__u64 c;
	__s32 pid;
	__s32 a;
	__s32 b;
	__s16 cpu;
	__u8 kind;
	__u8 ev;
	__u16 on_cpu;
	__u16 pad[3];
};

/**
 * struct saakm_rec_slot - a record as the kernel keeps it
 * @seq: as in struct saakm_rec
 * @ts_ns: as in struct saakm_rec for a CALL, and for any record written
 *	outside a callback; 0 for the others (STATE, INPUT, FORCE, ERROR or
 *	RET within a callback), which a slot's order on its CPU already
 *	places after their CALL: "saakm record" gives them its time.
 * @c: as in struct saakm_rec
 * @pid: as in struct saakm_rec
 * @a: as in struct saakm_rec
 * @b: as in struct saakm_rec
 * @cpu: as in struct saakm_rec
 * @kind: as in struct saakm_rec
 * @ev: as in struct saakm_rec
 * @on_cpu: as in struct saakm_rec
 * @ret_delta: a CALL only: 0, or its RET is folded into it. The RET is the
 *	record numbered @seq + @ret_delta, with @ret as its a, 0 as its b
 *	and c, and the rest of the CALL's fields. (A RET too far from its
 *	CALL, or without one, is a slot of its own.)
 * @st_delta: a CALL only: 0, or the first STATE of its callback is folded
 *	into it: the record numbered @seq + @st_delta, a STATE with @st_pid,
 *	@st_cpu, @st_new as a, @st_rq as b, @st_old as c, and the CALL's
 *	@on_cpu. (Later STATEs of the call, or one too far, take slots.)
 * @st_new: a CALL with @st_delta: the STATE's new state (its a)
 * @st_old: a CALL with @st_delta: the STATE's old state (its c)
 * @ret: a CALL with @ret_delta: what the callback returned (RET's a)
 * @st_pid: a CALL with @st_delta: the STATE's pid
 * @st_cpu: a CALL with @st_delta: the STATE's cpu
 * @st_rq: a CALL with @st_delta: the STATE's b (rq cpu)
 * @pad: unused
 *
 * A callback that changes one task's state (most do) takes one slot for
 * its CALL, that STATE and its RET, with one timestamp. Fields that
 * @ret_delta and @st_delta do not say are used may hold anything.
 */
struct saakm_rec_slot {
	__u64 seq;
	__u64 ts_ns;
	__u64 c;
	__s32 pid;
	__s32 a;
	__s32 b;
	__s16 cpu;
	__u8 kind;
	__u8 ev;
	__u16 on_cpu;
	__u16 ret_delta;
	__u16 st_delta;
	__u8 st_new;
	__u8 st_old;
	__s32 ret;
	__s32 st_pid;
	__s16 st_cpu;
	__s16 st_rq;
	__u32 pad;
};

/**
 * struct saakm_rec_buf_info - start of /proc/saakm/record_buf
 * @magic: SAAKM_REC_BUF_MAGIC, not NUL-terminated
 * @rec_size: sizeof(struct saakm_rec_slot)
 * @nr_cpus: CPUs the kernel can have (nr_cpu_ids)
 * @policy_id: the policy recorded last, 0 if none
 * @buf_kb: size of each CPU's buffer in KiB, 0 if none is allocated
 * @nr_records: slots that follow
 * @dropped: records lost because a CPU's buffer was full. They still took
 *	their seq numbers, so the recording shows gaps where they were.
 *
 * Writing a number of KiB to /proc/saakm/record_buf frees the buffers and
 * sizes those of the next recording (allocated when it starts); 0 only
 * frees them. Reading or writing it while a policy is recorded fails with
 * EBUSY.
 */
struct saakm_rec_buf_info {
	char magic[8];
	__u32 rec_size;
	__u32 nr_cpus;
	__u32 policy_id;
	__u32 buf_kb;
	__u64 nr_records;
	__u64 dropped;
};

#define SAAKM_REC_BUF_MAGIC	"SAAKMBUF"
#define SAAKM_REC_BUF_KB	32768	/* default size of a CPU's buffer */

#define SAAKM_REC_MAGIC		"SAAKMREC"
#define SAAKM_REC_VERSION	1
/* flags of struct saakm_rec_header */
#define SAAKM_REC_INCOMPLETE	0x1	/* records were lost: replay stops at the gap */

/**
 * struct saakm_rec_header - start of a recording file
 * @magic: SAAKM_REC_MAGIC, not NUL-terminated
 * @version: SAAKM_REC_VERSION
 * @header_size: sizeof(struct saakm_rec_header) when written
 * @nr_cpus: CPUs of the recorded machine (possible CPUs)
 * @flags: SAAKM_REC_*
 * @nr_records: records that follow
 * @lost: records known lost (seq gaps plus ring-buffer overruns)
 * @policy: the policy's name
 * @module: the module that registered it
 * @params: its module parameters, "name=value" separated by spaces
 */
struct saakm_rec_header {
	char magic[8];
	__u32 version;
	__u32 header_size;
	__u32 nr_cpus;
	__u32 flags;
	__u64 nr_records;
	__u64 lost;
	char policy[32];
	char module[56];
	char params[512];
};

/*
 * The state machine: X(FROM, TO) for each transition a policy may make with
 * saakm_change_state() (the SaaKM paper's Figure 2). Three targets are tied
 * to one callback: BLOCKED only from block() for that task, TERMINATED only
 * from terminate() for that task, MIGRATING only from balance_pick().
 */
#define SAAKM_TRANSITIONS(X)						\
	X(NOT_QUEUED, READY)	X(NOT_QUEUED, TERMINATED)		\
	X(READY, RUNNING)	X(READY, BLOCKED)			\
	X(READY, MIGRATING)	X(READY, TERMINATED)			\
	X(READY_TICK, RUNNING)	X(READY_TICK, BLOCKED)			\
	X(READY_TICK, MIGRATING) X(READY_TICK, TERMINATED)		\
	X(RUNNING, READY)	X(RUNNING, READY_TICK)			\
	X(RUNNING, BLOCKED)	X(RUNNING, TERMINATED)			\
	X(BLOCKED, READY)	X(BLOCKED, TERMINATED)			\
	X(MIGRATING, READY)	X(MIGRATING, TERMINATED)

#endif /* _UAPI_LINUX_SAAKM_REPLAY_H */
