// SPDX-License-Identifier: GPL-2.0
/*
 * libusim: the SaaKM policy API (<linux/saakm.h>) implemented in user space,
 * plus the small kernel services the shim headers expand to (per-CPU data,
 * kmalloc, hrtimers on a logical clock, module parameters, printk).
 *
 * What must behave exactly like the kernel, because replay compares the
 * policy's decisions with a recording, follows the class core line by line
 * (kernel/src/kernel/sched/saakm/saakm_policy.c, saakm_lib.c):
 * saakm_change_state() (the transition table SAAKM_TRANSITIONS of
 * <linux/saakm_replay.h>, the callback restrictions of saakm_in_context(),
 * the wrong-cpu check), saakm_running_ns(), saakm_exec_ns(),
 * saakm_can_migrate(), saakm_read_cpu() and saakm_clock_ns() (inputs only
 * within a callback),
 * registration (ops checks, slots, ids, core_entry on
 * every online CPU) and unregistration (every attached task terminated and
 * freed, core_exit on every online CPU, exit). The runqueues are not
 * followed but shared: the kernel's saakm_rq.c is compiled into libusim.
 *
 * Everything runs on one thread: the "current CPU" is the CPU of the
 * callback being run, set by usim_call().
 */
#include <linux/saakm.h>
#include <linux/saakm_replay.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "saakm_rq.h"		/* the kernel's, kernel/src/kernel/sched/saakm */
#include "saakm_check.h"	/* the kernel's rules, compiled here too */
#include "usim.h"

/* The class's per-policy, per-CPU bookkeeping that the API depends on. */
struct usim_pcpu {
	unsigned int nr_ready;	/* READY or READY_TICK tasks placed on this CPU */
	bool entered;		/* core_entry ran, core_exit not yet */
};

/* A registered policy: the ops copied, and the class's own state. */
struct saakm_policy {
	struct saakm_ops ops;
	void *priv;
	int id;
	int slot;
	bool failed;			/* an error was reported: the kernel would eject */
	struct module *owner;		/* the module object that registered it */
	struct saakm_policy *live;	/* a husk: the policy a newer version took over */
	unsigned int generation;	/* live upgrades so far */
	struct list_head tasks;		/* attached tasks, by saakm.policy_node */
	struct usim_pcpu pcpu[USIM_MAX_CPUS];
	unsigned long long events[SAAKM_NR_EVENTS];
	unsigned long long kicks[2];	/* saakm_kick_cpu() calls: plain, PREEMPT */
};

/* The callback running now and the task it was called for (saakm_ctx). */
struct usim_ctx {
	int ev;			/* SAAKM_NR_EVENTS outside any callback */
	struct task_struct *p;
};

static struct {
	struct usim_hooks hooks;
	struct usim_ctx ctx;
	int this_cpu;
	unsigned long long now_ns;
	struct saakm_policy *slots[SAAKM_MAX_POLICIES];
	int nr_policies;
	int last_id;
	struct task_struct **tasks;	/* by pid */
	int nr_task_slots;
	struct task_struct *last_task;
	struct hrtimer *timers;		/* armed, by expiry */
	long allocs;
	int errors;
	bool quiet;
	int topo_smt, topo_llc, topo_node;
	const void *attr_data;		/* the blob of checkparam/setparam_attr */
	unsigned int attr_size;
} W = { .ctx = { .ev = SAAKM_NR_EVENTS } };

/* CPU masks. */
unsigned int nr_cpu_ids = 1;
static struct cpumask possible_mask, online_mask;
static struct cpumask single_masks[USIM_MAX_CPUS];
static struct cpumask topo_masks[USIM_MAX_CPUS][SAAKM_NR_TOPO_LEVELS];
static struct cpumask topo_online[USIM_MAX_CPUS][SAAKM_NR_TOPO_LEVELS];
const struct cpumask *const cpu_possible_mask = &possible_mask;
const struct cpumask *const cpu_present_mask = &possible_mask;
const struct cpumask *const cpu_online_mask = &online_mask;
const struct cpumask *const cpu_active_mask = &online_mask;


/* Reporting. */

static void usim_verror(struct saakm_policy *pol, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	W.errors++;
	if (pol)
		pol->failed = true;
	if (W.hooks.error)
		W.hooks.error(W.hooks.ctx, msg);
	else
		fprintf(stderr, "usim: %s\n", msg);
}

static __printf(2, 3) void usim_error(struct saakm_policy *pol, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	usim_verror(pol, fmt, ap);
	va_end(ap);
}

void usim_warn(const char *file, int line, const char *what)
{
	usim_error(NULL, "%s at %s:%d", what, file, line);
}

int usim_printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	/* KERN_<LEVEL> is "\001" and one character. */
	if (fmt[0] == '\001' && fmt[1])
		fmt += 2;
	if (W.quiet)
		return 0;
	fprintf(stderr, "[%6llu.%06llu] ", W.now_ns / NSEC_PER_SEC,
		(W.now_ns % NSEC_PER_SEC) / NSEC_PER_USEC);
	va_start(ap, fmt);
	n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}

void usim_set_quiet(int quiet)
{
	W.quiet = quiet;
}

int usim_error_count(void)
{
	return W.errors;
}

const char *usim_state_name(int state)
{
	return state >= 0 ? saakm_state_name(state) : "?";
}

const char *usim_event_name(int ev)
{
	return ev >= 0 ? saakm_event_name(ev) : "?";
}

int usim_nr_states(void)
{
	return SAAKM_NR_STATES;
}

int usim_nr_events(void)
{
	return SAAKM_NR_EVENTS;
}

/* Memory. */

void *usim_kmalloc(size_t size, int zero)
{
	void *p = zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);

	if (p)
		W.allocs++;
	return p;
}

void usim_kfree(const void *p)
{
	if (!p)
		return;
	W.allocs--;
	free((void *)p);
}

long usim_alloc_outstanding(void)
{
	return W.allocs;
}

/*
 * Per-CPU data. The linker gathers DEFINE_PER_CPU() variables in section
 * usim_percpu; CPU n's copy of the whole section is unit n of the area, and
 * alloc_percpu() memory sits after the section in each unit. So for any
 * per-CPU address, static or dynamic, CPU n's copy is the address plus
 * pcpu_off[n], as with the kernel's __per_cpu_offset.
 */
extern char __start_usim_percpu[] __attribute__((weak));
extern char __stop_usim_percpu[] __attribute__((weak));

#define PCPU_DYN_SIZE	(64 * 1024)

static struct {
	char *area;
	size_t static_size;	/* section size, rounded up */
	size_t unit;
	size_t dyn_used;	/* bump allocator in the dynamic part */
	size_t dyn_high;	/* high-water mark, zeroed again at setup */
	uintptr_t base;		/* canonical address of unit offset 0 */
	long live;		/* alloc_percpu blocks not freed */
} pcpu;

static void pcpu_setup(void)
{
	size_t size = __start_usim_percpu ? (size_t)(__stop_usim_percpu - __start_usim_percpu) : 0;
	int cpu;

	if (!pcpu.area) {
		/* Fresh zeroed pages: only the units of CPUs in use get touched. */
		pcpu.static_size = (size + 63) & ~(size_t)63;
		pcpu.unit = pcpu.static_size + PCPU_DYN_SIZE;
		pcpu.area = calloc(1, pcpu.unit * USIM_MAX_CPUS + 64);
		if (!pcpu.area) {
			fprintf(stderr, "usim: no memory for per-CPU data\n");
			abort();
		}
		pcpu.area += -(uintptr_t)pcpu.area & 63;
		/* Without static per-CPU data, any address works as the base. */
		pcpu.base = __start_usim_percpu ? (uintptr_t)__start_usim_percpu : 4096;
	}
	for (cpu = 0; cpu < (int)nr_cpu_ids; cpu++) {
		char *unit = pcpu.area + (size_t)cpu * pcpu.unit;

		if (size)
			memcpy(unit, __start_usim_percpu, size);
		memset(unit + pcpu.static_size, 0, pcpu.dyn_high);
	}
	pcpu.dyn_used = 64;	/* never hand out the address of the section end */
	pcpu.dyn_high = 0;
	pcpu.live = 0;
}

void *usim_pcpu_ptr(const void *ptr, int cpu)
{
	uintptr_t off = (uintptr_t)ptr - pcpu.base;

	if (cpu < 0 || cpu >= (int)nr_cpu_ids || off >= pcpu.unit) {
		usim_error(NULL, "per_cpu_ptr(%p, %d): not a per-CPU address or CPU out of range",
			   ptr, cpu);
		cpu = 0;
		if (off >= pcpu.unit)
			return (void *)ptr;
	}
	return pcpu.area + (size_t)cpu * pcpu.unit + off;
}

void *usim_alloc_percpu(size_t size, size_t align)
{
	size_t at = (pcpu.dyn_used + align - 1) & ~(align - 1);

	if (at + size > PCPU_DYN_SIZE)
		return NULL;
	pcpu.dyn_used = at + size;
	if (pcpu.dyn_used > pcpu.dyn_high)
		pcpu.dyn_high = pcpu.dyn_used;
	pcpu.live++;
	W.allocs++;
	return (void *)(pcpu.base + pcpu.static_size + at);
}

void usim_free_percpu(void *ptr)
{
	if (!ptr)
		return;
	pcpu.live--;
	W.allocs--;
}

/* CPUs, clock. */

int usim_this_cpu(void)
{
	return W.this_cpu;
}

const struct cpumask *usim_cpumask_of(int cpu)
{
	return &single_masks[cpu >= 0 && cpu < USIM_MAX_CPUS ? cpu : 0];
}

int usim_nr_cpus(void)
{
	return nr_cpu_ids;
}

void usim_set_cpu_online(int cpu, int online)
{
	if (cpu < 0 || cpu >= (int)nr_cpu_ids)
		return;
	if (online)
		cpumask_set_cpu(cpu, &online_mask);
	else
		cpumask_clear_cpu(cpu, &online_mask);
}

int usim_cpu_online(int cpu)
{
	return cpu_online(cpu);
}

static void topo_build(void)
{
	int cpu, other;

	for (cpu = 0; cpu < (int)nr_cpu_ids; cpu++) {
		struct cpumask *m = topo_masks[cpu];

		memset(m, 0, sizeof(topo_masks[cpu]));
		for (other = 0; other < (int)nr_cpu_ids; other++) {
			if (other / W.topo_smt == cpu / W.topo_smt)
				cpumask_set_cpu(other, &m[SAAKM_TOPO_SMT]);
			if (other / W.topo_llc == cpu / W.topo_llc) {
				cpumask_set_cpu(other, &m[SAAKM_TOPO_CLUSTER]);
				cpumask_set_cpu(other, &m[SAAKM_TOPO_LLC]);
			}
			if (other / W.topo_node == cpu / W.topo_node)
				cpumask_set_cpu(other, &m[SAAKM_TOPO_NUMA]);
		}
	}
}

void usim_set_topology(int smt, int llc, int node)
{
	W.topo_smt = smt > 0 ? smt : 1;
	W.topo_llc = llc > 0 ? llc : USIM_MAX_CPUS;
	W.topo_node = node > 0 ? node : USIM_MAX_CPUS;
	topo_build();
}

const struct cpumask *saakm_topo_mask(int cpu, enum saakm_topo_level level)
{
	if (cpu < 0 || cpu >= (int)nr_cpu_ids) {
		usim_error(NULL, "saakm_topo_mask: cpu %d out of range", cpu);
		cpu = 0;
	}
	if (level >= SAAKM_TOPO_SYSTEM || level < 0)
		return cpu_online_mask;
	/* As the kernel's masks do, follow hotplug: online CPUs only. */
	cpumask_and(&topo_online[cpu][level], &topo_masks[cpu][level], cpu_online_mask);
	return &topo_online[cpu][level];
}

int saakm_topo_distance(int cpu_a, int cpu_b)
{
	return cpu_a / W.topo_node == cpu_b / W.topo_node ? 10 : 20;
}

/* The kernel's lib functions over run queue lengths, on the driver's counts. */
static unsigned int nr_running(int cpu)
{
	return W.hooks.nr_running ? W.hooks.nr_running(W.hooks.ctx, cpu) : 0;
}

int usim_idle_cpu(struct task_struct *p, const struct cpumask *mask, int first)
{
	int i, cpu;

	if (first < 0 || first >= (int)nr_cpu_ids)
		first = 0;
	for (i = 0; i < (int)nr_cpu_ids; i++) {
		cpu = (first + i) % (int)nr_cpu_ids;
		if (!cpumask_test_cpu(cpu, mask) || !cpu_online(cpu))
			continue;
		if (p && !cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		if (!nr_running(cpu))
			return cpu;
	}
	return -1;
}

int saakm_idle_cpu(struct saakm_policy *pol, struct task_struct *p,
		   const struct cpumask *mask, int first)
{
	return (int)saakm_read_cpu(pol, -1, usim_idle_cpu(p, mask, first));
}

unsigned int saakm_llc_nr_running(struct saakm_policy *pol, int cpu)
{
	const struct cpumask *llc = saakm_llc_cpus(cpu);
	unsigned int n = 0;
	int other;

	for (other = 0; other < (int)nr_cpu_ids; other++)
		if (cpumask_test_cpu(other, llc) && cpu_online(other))
			n += nr_running(other);
	return saakm_read_cpu(pol, cpu, n);
}

unsigned long long usim_clock_ns(void)
{
	return W.now_ns;
}

unsigned long long usim_now_ns(void)
{
	return W.now_ns;
}

unsigned long usim_jiffies(void)
{
	return W.now_ns / (NSEC_PER_SEC / HZ);
}

/* hrtimers: a list sorted by expiry (few timers per policy). */

static void timer_unlink(struct hrtimer *timer)
{
	struct hrtimer **link;

	for (link = &W.timers; *link; link = &(*link)->next) {
		if (*link == timer) {
			*link = timer->next;
			break;
		}
	}
	timer->queued = 0;
	timer->next = NULL;
}

static void timer_link(struct hrtimer *timer)
{
	struct hrtimer **link = &W.timers;

	while (*link && (*link)->expires <= timer->expires)
		link = &(*link)->next;
	timer->next = *link;
	*link = timer;
	timer->queued = 1;
}

void usim_hrtimer_start(struct hrtimer *timer, ktime_t tim, enum hrtimer_mode mode)
{
	if (timer->queued)
		timer_unlink(timer);
	timer->expires = (mode & HRTIMER_MODE_REL) ? (ktime_t)W.now_ns + tim : tim;
	timer->cpu = W.this_cpu;
	timer_link(timer);
}

int usim_hrtimer_cancel(struct hrtimer *timer)
{
	int was = timer->queued;

	if (was)
		timer_unlink(timer);
	return was;
}

/* Fire the timers due by @until, each with the clock at its expiry. */
static void timers_run(unsigned long long until)
{
	int budget = 1000000;	/* a timer re-armed in the past would loop */

	while (W.timers && (unsigned long long)W.timers->expires <= until) {
		struct hrtimer *timer = W.timers;
		int saved_cpu = W.this_cpu;
		enum hrtimer_restart ret;

		if (!budget--) {
			usim_error(NULL, "hrtimer %p re-armed in the past without end", (void *)timer);
			timer_unlink(timer);
			break;
		}
		timer_unlink(timer);
		if ((unsigned long long)timer->expires > W.now_ns)
			W.now_ns = timer->expires;
		W.this_cpu = timer->cpu;
		ret = timer->function ? timer->function(timer) : HRTIMER_NORESTART;
		if (ret == HRTIMER_RESTART && !timer->queued)
			timer_link(timer);
		/* The interrupt returns: the driver runs the irq_work (kicks). */
		if (W.hooks.timer)
			W.hooks.timer(W.hooks.ctx, W.this_cpu);
		W.this_cpu = saved_cpu;
	}
}

void usim_advance_ns(unsigned long long ns)
{
	unsigned long long until = W.now_ns + ns;

	timers_run(until);
	W.now_ns = until;
}

void usim_set_now_ns(unsigned long long ns)
{
	if (ns > W.now_ns)
		usim_advance_ns(ns - W.now_ns);
}

/* Module, parameters. */

/*
 * The module objects linked in, by source file (the shim's module_init()
 * and module_exit() pass __BASE_FILE__): usually one, two for a test of a
 * policy's live upgrade between versions.
 */
#define USIM_MAX_MODULES	4

static struct usim_module {
	const char *file;
	int (*init)(void);
	void (*exit)(void);
} modules[USIM_MAX_MODULES];
static int nr_modules;

struct usim_param {
	const char *name;
	void *addr;		/* the variable; for usim_param_type_cb its kernel_param */
	enum usim_param_type type;
};

static struct usim_param params[64];
static int nr_params;

void usim_register_module(const char *file, int (*init)(void), void (*exit)(void))
{
	int i;

	for (i = 0; i < nr_modules && strcmp(modules[i].file, file); i++)
		;
	if (i == nr_modules) {
		if (nr_modules == USIM_MAX_MODULES) {
			fprintf(stderr, "usim: more than %d modules linked in\n", USIM_MAX_MODULES);
			abort();
		}
		modules[nr_modules++].file = file;
	}
	if (init)
		modules[i].init = init;
	if (exit)
		modules[i].exit = exit;
}

void usim_register_param(const char *name, void *addr, enum usim_param_type type)
{
	if (nr_params == (int)ARRAY_SIZE(params)) {
		fprintf(stderr, "usim: too many module parameters\n");
		abort();
	}
	params[nr_params++] = (struct usim_param){ name, addr, type };
}

void usim_register_param_cb(const struct kernel_param *kp)
{
	usim_register_param(kp->name, (void *)kp, usim_param_type_cb);
}

/*
 * kstrto*(), as lib/kstrtox.c: base 0 detects 0x/0 prefixes, a '+' (or '-'
 * for the signed ones) may lead, one trailing newline is allowed, nothing
 * else; -EINVAL for text that is not a number, -ERANGE for one too big.
 */
static int kstrto_parse(const char *s, unsigned int base, bool is_signed, long long *sres,
			unsigned long long *ures)
{
	char buf[64], *end;
	size_t len;

	if (!s)
		return -EINVAL;
	len = strlen(s);
	if (len && s[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(buf) || isspace((unsigned char)s[0]))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!is_signed && buf[0] == '-')
		return -EINVAL;
	errno = 0;
	if (is_signed)
		*sres = strtoll(buf, &end, base);
	else
		*ures = strtoull(buf, &end, base);
	if (*end || end == buf)
		return -EINVAL;
	return errno == ERANGE ? -ERANGE : 0;
}

int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	long long unused;

	return kstrto_parse(s, base, false, &unused, res);
}

int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long unused;

	return kstrto_parse(s, base, true, res, &unused);
}

#define KSTRTO_U(name, type, max)					\
int name(const char *s, unsigned int base, type *res)			\
{									\
	unsigned long long v;						\
	int ret = kstrtoull(s, base, &v);				\
									\
	if (ret)							\
		return ret;						\
	if (v > (max))							\
		return -ERANGE;						\
	*res = v;							\
	return 0;							\
}
#define KSTRTO_S(name, type, min, max)					\
int name(const char *s, unsigned int base, type *res)			\
{									\
	long long v;							\
	int ret = kstrtoll(s, base, &v);				\
									\
	if (ret)							\
		return ret;						\
	if (v < (min) || v > (max))					\
		return -ERANGE;						\
	*res = v;							\
	return 0;							\
}
KSTRTO_U(kstrtoul, unsigned long, ULONG_MAX)
KSTRTO_U(kstrtouint, unsigned int, UINT_MAX)
KSTRTO_U(kstrtou64, u64, ULLONG_MAX)
KSTRTO_U(usim_kstrtou16, unsigned short, USHRT_MAX)
KSTRTO_U(usim_kstrtou8, unsigned char, UCHAR_MAX)
KSTRTO_S(kstrtol, long, LONG_MIN, LONG_MAX)
KSTRTO_S(kstrtoint, int, INT_MIN, INT_MAX)
KSTRTO_S(kstrtos64, s64, LLONG_MIN, LLONG_MAX)
KSTRTO_S(usim_kstrtos16, short, SHRT_MIN, SHRT_MAX)

int kstrtobool(const char *s, bool *res)
{
	if (!s)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}

/* The standard param_set_/param_get_ functions and ops (kernel/params.c). */
#define PARAM_PAGE	4096	/* the .get buffer: a page in the kernel */
#define STD_PARAM(type, ctype, parse, fmt)					\
int param_set_##type(const char *val, const struct kernel_param *kp)		\
{										\
	return parse(val, 0, (ctype *)kp->arg);				\
}										\
int param_get_##type(char *buffer, const struct kernel_param *kp)		\
{										\
	return scnprintf(buffer, PARAM_PAGE, fmt "\n", *(ctype *)kp->arg);	\
}										\
const struct kernel_param_ops param_ops_##type = {				\
	.set = param_set_##type, .get = param_get_##type,			\
}
STD_PARAM(byte, unsigned char, usim_kstrtou8, "%hhu");
STD_PARAM(short, short, usim_kstrtos16, "%hi");
STD_PARAM(ushort, unsigned short, usim_kstrtou16, "%hu");
STD_PARAM(int, int, kstrtoint, "%i");
STD_PARAM(uint, unsigned int, kstrtouint, "%u");
STD_PARAM(long, long, kstrtol, "%li");
STD_PARAM(ulong, unsigned long, kstrtoul, "%lu");
STD_PARAM(ullong, unsigned long long, kstrtoull, "%llu");

int param_set_uint_minmax(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < min || v > max)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

int param_set_bool(const char *val, const struct kernel_param *kp)
{
	return kstrtobool(val ? val : "1", (bool *)kp->arg);	/* no value: true */
}

int param_get_bool(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PARAM_PAGE, "%c\n", *(bool *)kp->arg ? 'Y' : 'N');
}

const struct kernel_param_ops param_ops_bool = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = param_set_bool, .get = param_get_bool,
};

int param_set_invbool(const char *val, const struct kernel_param *kp)
{
	bool b;
	int ret = kstrtobool(val ? val : "1", &b);

	if (!ret)
		*(bool *)kp->arg = !b;
	return ret;
}

int param_get_invbool(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PARAM_PAGE, "%c\n", *(bool *)kp->arg ? 'N' : 'Y');
}

const struct kernel_param_ops param_ops_invbool = {
	.set = param_set_invbool, .get = param_get_invbool,
};

int param_set_charp(const char *val, const struct kernel_param *kp)
{
	char *copy = strdup(val ? val : "");

	if (!copy)
		return -ENOMEM;
	*(char **)kp->arg = copy;
	return 0;
}

int param_get_charp(char *buffer, const struct kernel_param *kp)
{
	const char *v = *(char **)kp->arg;

	return scnprintf(buffer, PARAM_PAGE, "%s\n", v ? v : "(null)");
}

const struct kernel_param_ops param_ops_charp = {
	.set = param_set_charp, .get = param_get_charp,
};

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "Y") || !strcmp(v, "y") || !strcmp(v, "1") || !strcmp(v, ""))
		*out = true;
	else if (!strcmp(v, "N") || !strcmp(v, "n") || !strcmp(v, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* Set one parameter from its text, as param_set_*() would. */
static int param_set(struct usim_param *prm, const char *v)
{
	char *end;
	long long s = 0;
	unsigned long long u = 0;
	bool b;

	switch (prm->type) {
	case usim_param_type_cb: {
		const struct kernel_param *kp = prm->addr;

		if (!kp->ops->set)
			return -EPERM;
		return kp->ops->set(v, kp);
	}
	case usim_param_type_bool:
	case usim_param_type_invbool:
		if (parse_bool(v, &b))
			return -EINVAL;
		*(bool *)prm->addr = prm->type == usim_param_type_bool ? b : !b;
		return 0;
	case usim_param_type_charp:
		*(char **)prm->addr = strdup(v);
		return 0;
	case usim_param_type_short:
	case usim_param_type_int:
	case usim_param_type_long:
		s = strtoll(v, &end, 0);
		break;
	default:
		u = strtoull(v, &end, 0);
		if (*v == '-')
			return -EINVAL;
		break;
	}
	if (!*v || *end)
		return -EINVAL;
	switch (prm->type) {
	case usim_param_type_byte:	*(unsigned char *)prm->addr = u; break;
	case usim_param_type_short:	*(short *)prm->addr = s; break;
	case usim_param_type_ushort:	*(unsigned short *)prm->addr = u; break;
	case usim_param_type_int:	*(int *)prm->addr = s; break;
	case usim_param_type_uint:	*(unsigned int *)prm->addr = u; break;
	case usim_param_type_long:	*(long *)prm->addr = s; break;
	case usim_param_type_ulong:	*(unsigned long *)prm->addr = u; break;
	case usim_param_type_ullong:	*(unsigned long long *)prm->addr = u; break;
	default:			return -EINVAL;
	}
	return 0;
}

int usim_set_params(const char *text)
{
	char buf[1024], *save = NULL, *tok;
	int i, ret;

	if (!text)
		return 0;
	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strchr(tok, '=');
		const char *val = eq ? eq + 1 : "";

		if (eq)
			*eq = '\0';
		for (i = 0; i < nr_params; i++)
			if (!strcmp(params[i].name, tok))
				break;
		if (i == nr_params) {
			usim_error(NULL, "module parameter %s: no such parameter", tok);
			return -EINVAL;
		}
		/*
		 * A status parameter (a .get, no .set) is in a recording's
		 * parameters as sysfs showed it; nothing ever sets it.
		 */
		if (params[i].type == usim_param_type_cb &&
		    !((const struct kernel_param *)params[i].addr)->ops->set)
			continue;
		ret = param_set(&params[i], val);
		if (ret) {
			usim_error(NULL, "module parameter %s: bad value '%s'", tok, val);
			return ret < 0 ? ret : -EINVAL;
		}
	}
	return 0;
}

static void param_text(struct usim_param *prm, char *buf, size_t size);

static struct usim_param *param_find(const char *name)
{
	int i;

	for (i = 0; i < nr_params; i++)
		if (!strcmp(params[i].name, name))
			return &params[i];
	return NULL;
}

int usim_param_write(const char *name, const char *val)
{
	struct usim_param *prm = param_find(name);

	if (!prm)
		return -ENOENT;
	return param_set(prm, val);
}

int usim_param_read(const char *name, char *buf, size_t size)
{
	char line[1024];
	struct usim_param *prm = param_find(name);
	size_t i;

	if (!prm)
		return -ENOENT;
	param_text(prm, line, sizeof(line));
	snprintf(buf, size, "%s", line);
	for (i = strlen(buf); i > 0 && buf[i - 1] == '\n'; i--)
		buf[i - 1] = '\0';
	return 0;
}

/* The value of @prm as text (what sysfs shows), without a newline. */
static void param_text(struct usim_param *prm, char *buf, size_t size)
{
	char page[4096];
	size_t len;

	switch (prm->type) {
	case usim_param_type_cb: {
		const struct kernel_param *kp = prm->addr;

		page[0] = '\0';
		if (kp->ops->get)
			kp->ops->get(page, kp);
		len = strcspn(page, "\n");
		page[len] = '\0';
		snprintf(buf, size, "%s", page);
		break;
	}
	case usim_param_type_bool:
	case usim_param_type_invbool:
		snprintf(buf, size, "%c",
			 (*(bool *)prm->addr ^ (prm->type == usim_param_type_invbool)) ? 'Y' : 'N');
		break;
	case usim_param_type_charp:
		snprintf(buf, size, "%s", *(char **)prm->addr ? *(char **)prm->addr : "(null)");
		break;
	case usim_param_type_byte:
		snprintf(buf, size, "%u", *(unsigned char *)prm->addr);
		break;
	case usim_param_type_short:
		snprintf(buf, size, "%d", *(short *)prm->addr);
		break;
	case usim_param_type_ushort:
		snprintf(buf, size, "%u", *(unsigned short *)prm->addr);
		break;
	case usim_param_type_int:
		snprintf(buf, size, "%d", *(int *)prm->addr);
		break;
	case usim_param_type_uint:
		snprintf(buf, size, "%u", *(unsigned int *)prm->addr);
		break;
	case usim_param_type_long:
		snprintf(buf, size, "%ld", *(long *)prm->addr);
		break;
	case usim_param_type_ulong:
		snprintf(buf, size, "%lu", *(unsigned long *)prm->addr);
		break;
	case usim_param_type_ullong:
		snprintf(buf, size, "%llu", *(unsigned long long *)prm->addr);
		break;
	}
}

void usim_get_params(char *buf, size_t size)
{
	char value[1024];
	size_t n = 0;
	int i;

	if (!size)
		return;
	buf[0] = '\0';
	for (i = 0; i < nr_params && n < size; i++) {
		param_text(&params[i], value, sizeof(value));
		n += snprintf(buf + n, size - n, "%s%s=%s", i ? " " : "", params[i].name, value);
	}
}

/* Tasks. */

static void task_init(struct task_struct *p, int pid)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->tgid = pid;
	snprintf(p->comm, sizeof(p->comm), "task%d", pid);
	p->static_prio = p->prio = p->normal_prio = NICE_TO_PRIO(0);
	p->policy = 8;	/* SCHED_SAAKM */
	cpumask_copy(&p->cpus_mask, cpu_possible_mask);
	p->cpus_ptr = &p->cpus_mask;
	p->nr_cpus_allowed = cpumask_weight(&p->cpus_mask);
	INIT_LIST_HEAD(&p->saakm.node);
	RB_CLEAR_NODE(&p->saakm.rb);
	INIT_LIST_HEAD(&p->saakm.core_node);
	INIT_LIST_HEAD(&p->saakm.policy_node);
	p->saakm.cpu = -1;
	p->saakm.state = SAAKM_NOT_QUEUED;
}

struct task_struct *usim_task_find(int pid)
{
	return pid >= 0 && pid < W.nr_task_slots ? W.tasks[pid] : NULL;
}

struct task_struct *usim_task(int pid)
{
	struct task_struct *p;

	if (pid < 0)
		return NULL;
	if (pid >= W.nr_task_slots) {
		int n = W.nr_task_slots ? W.nr_task_slots : 64;
		struct task_struct **t;

		while (n <= pid)
			n *= 2;
		t = realloc(W.tasks, n * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + W.nr_task_slots, 0, (n - W.nr_task_slots) * sizeof(*t));
		W.tasks = t;
		W.nr_task_slots = n;
	}
	p = W.tasks[pid];
	if (!p) {
		p = malloc(sizeof(*p));
		if (!p)
			return NULL;
		task_init(p, pid);
		W.tasks[pid] = p;
	}
	return p;
}


void usim_detach(struct task_struct *p)
{
	struct saakm_policy *pol = p->saakm.policy;

	if (!pol)
		return;
	if (p->saakm.queue)
		saakm_rq_remove(p);
	if ((p->saakm.state == SAAKM_READY || p->saakm.state == SAAKM_READY_TICK) &&
	    p->saakm.cpu >= 0)
		pol->pcpu[p->saakm.cpu].nr_ready--;
	list_del_init(&p->saakm.policy_node);
	p->saakm.policy = NULL;
	p->saakm.data = NULL;
}

void usim_task_free(struct task_struct *p)
{
	if (!p)
		return;
	usim_detach(p);
	if (p->pid < W.nr_task_slots && W.tasks[p->pid] == p)
		W.tasks[p->pid] = NULL;
	free(p);
}

int usim_task_pid(const struct task_struct *p)
{
	return p ? p->pid : -1;
}

int usim_task_state(const struct task_struct *p)
{
	return p->saakm.state;
}

int usim_task_cpu(const struct task_struct *p)
{
	return p->usim_cpu;
}

int usim_task_saakm_cpu(const struct task_struct *p)
{
	return p->saakm.cpu;
}

struct saakm_policy *usim_task_policy(const struct task_struct *p)
{
	return p->saakm.policy;
}

int usim_task_rq_cpu(const struct task_struct *p)
{
	return p->saakm.queue ? p->saakm.queue->cpu : -2;
}

void usim_set_affinity(struct task_struct *p, unsigned long long mask)
{
	if (nr_cpu_ids < 64)
		mask &= (1ULL << nr_cpu_ids) - 1;
	p->cpus_mask.bits[0] = mask;
	p->nr_cpus_allowed = cpumask_weight(&p->cpus_mask);
}

unsigned long long usim_task_affinity(const struct task_struct *p)
{
	return p->cpus_mask.bits[0];
}

void usim_set_task_cpu(struct task_struct *p, int cpu)
{
	p->usim_cpu = cpu;
}

void usim_set_nice(struct task_struct *p, int nice)
{
	p->static_prio = p->prio = p->normal_prio = NICE_TO_PRIO(nice);
}

int usim_task_nice(const struct task_struct *p)
{
	return task_nice(p);
}

void usim_set_attr_data(const void *data, unsigned int size)
{
	W.attr_data = size ? data : NULL;
	W.attr_size = data ? size : 0;
}

void usim_set_sched_runtime(struct task_struct *p, unsigned long long ns)
{
	p->saakm.runtime = ns;
}

void usim_task_add_runtime(struct task_struct *p, unsigned long long ns)
{
	p->se.sum_exec_runtime += ns;
}

#define USIM_TF_ON_CPU 0x1

void usim_set_on_cpu(struct task_struct *p, int on_cpu)
{
	if (on_cpu)
		p->usim_flags |= USIM_TF_ON_CPU;
	else
		p->usim_flags &= ~USIM_TF_ON_CPU;
}

/* Runqueues: the kernel's own code, kernel/src/kernel/sched/saakm/saakm_rq.c. */

static bool is_ready(int state)
{
	return state == SAAKM_READY || state == SAAKM_READY_TICK;
}

/* The state machine. */

static void leave_state(struct task_struct *p)
{
	struct sched_saakm_entity *se = &p->saakm;

	if (se->queue)
		saakm_rq_remove(p);
	if (is_ready(se->state) && se->cpu >= 0)
		se->policy->pcpu[se->cpu].nr_ready--;
}

void usim_force_state(struct task_struct *p, int state)
{
	/* READY_TICK -> READY only relabels a task that stays queued. */
	if (!(is_ready(p->saakm.state) && is_ready(state)) && p->saakm.policy)
		leave_state(p);
	if (state == SAAKM_RUNNING && p->saakm.state != SAAKM_RUNNING)
		p->saakm.run_start = p->se.sum_exec_runtime;
	p->saakm.state = state;
}

/*
 * saakm_in_context(): may the running callback move @p to @to? The rule is
 * the kernel's (saakm_check.c); the first task schedule() makes RUNNING is
 * recorded here, as the class records it.
 */
static bool in_context(struct task_struct *p, int to)
{
	if (!saakm_callback_may(W.ctx.ev, W.ctx.p, p, to))
		return false;
	if (to == SAAKM_RUNNING)
		W.ctx.p = p;
	return true;
}

static void bad_transition(struct task_struct *p, int to, const char *why)
{
	usim_error(p->saakm.policy,
		   "policy %s: %s: task %d on cpu %d: %s -> %s%s (in %s)",
		   p->saakm.policy->ops.name, saakm_eject_kind_name(SAAKM_EJECT_TRANSITION),
		   p->pid, task_cpu(p),
		   usim_state_name(p->saakm.state), usim_state_name(to), why,
		   W.ctx.ev < SAAKM_NR_EVENTS ? usim_event_name(W.ctx.ev) : "no callback");
}

void saakm_change_state(struct task_struct *p, enum saakm_task_state state, int cpu,
			struct saakm_rq *rq)
{
	struct sched_saakm_entity *se = &p->saakm;
	int from = se->state;

	if (!se->policy || state >= SAAKM_NR_STATES) {
		usim_error(se->policy, "saakm_change_state: task %d %s", p->pid,
			   se->policy ? "to an unknown state" : "is not in a policy");
		return;
	}
	if (!saakm_transition_ok(se->state, state)) {
		bad_transition(p, state, "");
		return;
	}
	if (!in_context(p, state)) {
		bad_transition(p, state, " outside its callback");
		return;
	}
	if (is_ready(state) &&
	    (!rq || cpu != (int)task_cpu(p) || (rq->cpu >= 0 && rq->cpu != cpu))) {
		usim_error(se->policy,
			   "policy %s: %s: task %d queued for cpu %d (runqueue of cpu %d) but enqueued on cpu %d",
			   se->policy->ops.name, saakm_eject_kind_name(SAAKM_EJECT_WRONG_CPU),
			   p->pid, cpu, rq ? rq->cpu : -1, task_cpu(p));
		return;
	}
	leave_state(p);
	se->state = state;
	if (is_ready(state)) {
		saakm_rq_insert(rq, p);
		se->policy->pcpu[cpu].nr_ready++;
		se->cpu = cpu;
	} else if (state == SAAKM_RUNNING) {
		se->cpu = cpu;
		se->run_start = p->se.sum_exec_runtime;
	}
	if (W.hooks.state)
		W.hooks.state(W.hooks.ctx, p, from, state, cpu, rq ? rq->cpu : -1);
}

/* Services. */

bool saakm_can_migrate(struct task_struct *p, int dst_cpu)
{
	unsigned long long val = cpumask_test_cpu(dst_cpu, p->cpus_ptr) && cpu_active(dst_cpu) &&
				 !(p->usim_flags & USIM_TF_ON_CPU);

	if (W.hooks.input)
		W.hooks.input(W.hooks.ctx, SAAKM_INPUT_CAN_MIGRATE, p, dst_cpu, &val);
	return val != 0;
}

u64 saakm_running_ns(struct task_struct *p)
{
	unsigned long long val = 0;

	if (p->saakm.state == SAAKM_RUNNING)
		val = p->se.sum_exec_runtime - p->saakm.run_start;
	if (W.hooks.input)
		W.hooks.input(W.hooks.ctx, SAAKM_INPUT_RUNNING_NS, p, -1, &val);
	return val;
}

u64 saakm_exec_ns(struct task_struct *p)
{
	unsigned long long val = p->se.sum_exec_runtime;

	if (W.hooks.input)
		W.hooks.input(W.hooks.ctx, SAAKM_INPUT_EXEC_NS, p, -1, &val);
	return val;
}

/* A callback takes a lock of the policy's: tell the driver (struct usim_hooks). */
void usim_lock_point(void)
{
	if (W.hooks.lock && W.ctx.ev != SAAKM_NR_EVENTS)
		W.hooks.lock(W.hooks.ctx);
}

/* The simulated time; within a callback, an input the driver may serve (replay). */
u64 saakm_clock_ns(struct saakm_policy *pol)
{
	unsigned long long v = W.now_ns;

	if (W.hooks.input && W.ctx.ev != SAAKM_NR_EVENTS)
		W.hooks.input(W.hooks.ctx, SAAKM_INPUT_CLOCK, NULL, -1, &v);
	return v;
}

/* saakm_read_cpu()'s switch: "recording" is always on here, so every read comes below. */
const int saakm_recording_key = 1;

/* What a callback read of another CPU's state (the kernel records it as an INPUT). */
u64 __saakm_read_cpu(struct saakm_policy *pol, int cpu, u64 val)
{
	unsigned long long v = val;

	if (W.hooks.input && W.ctx.ev != SAAKM_NR_EVENTS)
		W.hooks.input(W.hooks.ctx, SAAKM_INPUT_READ_CPU, NULL, cpu, &v);
	return v;
}

void saakm_policy_error(struct saakm_policy *pol, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	usim_error(pol, "policy %s: error: %s", pol->ops.name, msg);
}

int saakm_policy_id(const struct saakm_policy *pol)
{
	return pol->id;
}

void *saakm_priv(const struct saakm_policy *pol)
{
	return pol->priv;
}

/*
 * saakm_kick_cpu(): counted, and handed to the driver (usim_hooks.kick),
 * which carries it out after the current callback, as the kernel's
 * irq_work does. Without a driver hook (replay) the kick has no effect:
 * a recording holds the PREEMPT calls it caused.
 */
void saakm_kick_cpu(struct saakm_policy *pol, int cpu, unsigned int flags)
{
	if (cpu < 0 || cpu >= (int)nr_cpu_ids) {
		usim_error(pol, "policy %s: saakm_kick_cpu: cpu %d out of range", pol->ops.name, cpu);
		return;
	}
	pol->kicks[!!(flags & SAAKM_KICK_PREEMPT)]++;
	if (W.hooks.kick)
		W.hooks.kick(W.hooks.ctx, pol, cpu, flags);
}

/*
 * The fair class's weights by nice value, sched_prio_to_weight[] of
 * kernel/sched/core.c: 1024 at nice 0, each step about 1.25x (10% of CPU
 * between two tasks one nice level apart).
 */
static const unsigned int nice_weights[40] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */  9548,  7620,  6100,  4904,  3906,
	/*  -5 */  3121,  2501,  1991,  1586,  1277,
	/*   0 */  1024,   820,   655,   526,   423,
	/*   5 */   335,   272,   215,   172,   137,
	/*  10 */   110,    87,    70,    56,    45,
	/*  15 */    36,    29,    23,    18,    15,
};

unsigned int saakm_nice_weight(int nice)
{
	return nice_weights[clamp(nice, -20, 19) + 20];
}

/* Policies. */

/* Old versions whose module has not unregistered yet (usim_upgrade()). */
static LIST_HEAD(husks);
struct usim_husk {
	struct list_head node;
	struct saakm_policy pol;
};

/* READY tasks in a runqueue the new version did not adopt: its unblock_place(). */
static void upgrade_place_left_behind(struct saakm_policy *pol)
{
	struct task_struct *p;

	list_for_each_entry(p, &pol->tasks, saakm.policy_node) {
		int cpu = task_cpu(p);

		if (!saakm_rq_left_behind(p))
			continue;
		usim_force_state(p, SAAKM_MIGRATING);
		usim_call(pol, SAAKM_EV_UNBLOCK_PLACE, cpu, p, cpu);
		if (!is_ready(p->saakm.state))
			usim_error(pol, "policy %s: callback: unblock_place left task %d in state %s",
				   pol->ops.name, p->pid, usim_state_name(p->saakm.state));
	}
}

/*
 * The kernel's live upgrade (saakm_upgrade.c), in one step: the new
 * version's init() on a handle of its own, the old version's
 * upgrade_export(), the ops change hands, the new upgrade_import() (which
 * may adopt runqueues), core_entry(), READY tasks left behind placed, and
 * the old version's exit() on its handle, kept as a tombstone. A refusal
 * gives the policy back untouched. Return: 0 or the refusing errno.
 */
static int usim_upgrade(struct saakm_policy *pol, const struct saakm_ops *ops, void *priv,
			struct module *owner)
{
	struct saakm_upgrade up = { .version = pol->ops.version };
	struct usim_husk *husk;
	unsigned int ready = 0;
	int cpu, ret;

	if (pol->failed)
		return -EBUSY;
	husk = calloc(1, sizeof(*husk));
	if (!husk)
		return -ENOMEM;
	/* @husk is the new version's handle until the swap */
	husk->pol.ops = *ops;
	husk->pol.priv = priv;
	husk->pol.owner = owner;
	husk->pol.id = pol->id;
	INIT_LIST_HEAD(&husk->pol.tasks);
	if (ops->init) {
		ret = ops->init(&husk->pol);
		if (ret)
			goto out_free;
	}
	if (pol->ops.upgrade_export) {
		ret = pol->ops.upgrade_export(pol, &up);
		if (ret)
			goto out_exit;
	}
	husk->pol.ops = pol->ops;
	husk->pol.priv = pol->priv;
	husk->pol.owner = pol->owner;
	pol->ops = *ops;
	pol->priv = priv;
	pol->owner = owner;
	saakm_rq_import_begin();
	ret = pol->ops.upgrade_import(pol, &up);
	saakm_rq_import_end();
	if (ret && !saakm_rq_adopted) {
		pol->ops = husk->pol.ops;
		pol->priv = husk->pol.priv;
		pol->owner = husk->pol.owner;
		husk->pol.ops = *ops;
		husk->pol.priv = priv;
		husk->pol.owner = owner;
		goto out_exit;
	}
	if (ret)
		usim_error(pol, "policy %s: upgrade_import() failed (%d) after adopting %u tasks",
			   pol->ops.name, ret, saakm_rq_adopted);
	for_each_online_cpu(cpu)
		if (pol->pcpu[cpu].entered)
			usim_call(pol, SAAKM_EV_CORE_ENTRY, cpu, NULL, -1);
	for_each_possible_cpu(cpu)
		ready += pol->pcpu[cpu].nr_ready;
	if (saakm_rq_adopted != ready)
		upgrade_place_left_behind(pol);
	pol->generation++;
	husk->pol.live = pol;
	if (husk->pol.ops.exit)
		husk->pol.ops.exit(&husk->pol);
	list_add(&husk->node, &husks);
	return 0;

out_exit:
	if (husk->pol.ops.exit)
		husk->pol.ops.exit(&husk->pol);
out_free:
	free(husk);
	return ret;
}

struct saakm_policy *__saakm_register_policy(const struct saakm_ops *ops, void *priv,
					     struct module *owner)
{
	struct saakm_policy *pol;
	int slot, cpu, ret;

	if (!saakm_ops_valid(ops))
		return ERR_PTR(-EINVAL);
	for (slot = 0; slot < SAAKM_MAX_POLICIES; slot++) {
		pol = W.slots[slot];
		if (!pol || strcmp(pol->ops.name, ops->name))
			continue;
		if (!ops->upgrade)
			return ERR_PTR(-EEXIST);
		ret = usim_upgrade(pol, ops, priv, owner);
		return ret ? ERR_PTR(ret) : pol;
	}
	for (slot = 0; slot < SAAKM_MAX_POLICIES && W.slots[slot]; slot++)
		;
	if (slot == SAAKM_MAX_POLICIES)
		return ERR_PTR(-ENOSPC);
	pol = calloc(1, sizeof(*pol));
	if (!pol)
		return ERR_PTR(-ENOMEM);
	pol->ops = *ops;
	pol->priv = priv;
	pol->owner = owner;
	INIT_LIST_HEAD(&pol->tasks);
	if (pol->ops.init) {
		ret = pol->ops.init(pol);
		if (ret) {
			free(pol);
			return ERR_PTR(ret);
		}
	}
	pol->slot = slot;
	pol->id = ++W.last_id;
	W.slots[slot] = pol;
	W.nr_policies++;
	for_each_online_cpu(cpu)
		usim_call(pol, SAAKM_EV_CORE_ENTRY, cpu, NULL, -1);
	return pol;
}

/*
 * saakm_unregister_policy(): the drain moves every attached task back to
 * SCHED_NORMAL, which the policy sees as terminate (unless the task is
 * TERMINATED already) and free_metadata; then core_exit on every online
 * CPU, then exit.
 */
void __saakm_unregister_policy(struct saakm_policy *pol, struct module *owner)
{
	struct usim_husk *husk;
	int cpu;

	/* a version a newer one replaced, which exited then: nothing is left */
	list_for_each_entry(husk, &husks, node) {
		if (husk->pol.live == pol && husk->pol.owner == owner) {
			list_del(&husk->node);
			free(husk);
			return;
		}
	}
	if (pol->owner != owner) {
		usim_error(pol, "policy %s: unregistered by a module that does not run it",
			   pol->ops.name);
		return;
	}
	while (!list_empty(&pol->tasks)) {
		struct task_struct *p = list_first_entry(&pol->tasks, struct task_struct,
							 saakm.policy_node);

		if (p->saakm.state != SAAKM_TERMINATED) {
			usim_call(pol, SAAKM_EV_TERMINATE, task_cpu(p), p, -1);
			if (p->saakm.state != SAAKM_TERMINATED) {
				usim_error(pol, "policy %s: callback: terminate left task %d in state %s",
					   pol->ops.name, p->pid, usim_state_name(p->saakm.state));
				usim_force_state(p, SAAKM_TERMINATED);
			}
		}
		usim_call(pol, SAAKM_EV_FREE_METADATA, task_cpu(p), p, -1);
		usim_detach(p);	/* FREE_METADATA did, unless the policy lacks it */
	}
	for_each_online_cpu(cpu)
		if (pol->pcpu[cpu].entered)
			usim_call(pol, SAAKM_EV_CORE_EXIT, cpu, NULL, -1);
	if (pol->ops.exit)
		pol->ops.exit(pol);
	W.slots[pol->slot] = NULL;
	W.nr_policies--;
	free(pol);
}

struct saakm_policy *usim_policy(const char *name)
{
	int slot;

	for (slot = 0; slot < SAAKM_MAX_POLICIES; slot++) {
		struct saakm_policy *pol = W.slots[slot];

		if (pol && (!name || !strcmp(pol->ops.name, name)))
			return pol;
	}
	return NULL;
}

int usim_nr_policies(void)
{
	return W.nr_policies;
}

struct saakm_policy *usim_policy_nth(int n)
{
	int slot;

	for (slot = 0; slot < SAAKM_MAX_POLICIES; slot++)
		if (W.slots[slot] && !n--)
			return W.slots[slot];
	return NULL;
}

const char *usim_policy_name(const struct saakm_policy *pol)
{
	return pol->ops.name;
}

int usim_policy_id(const struct saakm_policy *pol)
{
	return pol->id;
}

int usim_policy_failed(const struct saakm_policy *pol)
{
	return pol->failed;
}

unsigned int usim_policy_nr_ready(const struct saakm_policy *pol, int cpu)
{
	return cpu >= 0 && cpu < USIM_MAX_CPUS ? pol->pcpu[cpu].nr_ready : 0;
}

int usim_policy_has_tasks(const struct saakm_policy *pol)
{
	return !list_empty(&pol->tasks);
}

unsigned int usim_policy_balance_ms(const struct saakm_policy *pol)
{
	return pol->ops.balance_ms;
}

unsigned int usim_policy_timeout_ms(const struct saakm_policy *pol)
{
	return pol->ops.timeout_ms;
}

unsigned int usim_policy_balance_max(const struct saakm_policy *pol)
{
	return pol->ops.balance_max ? pol->ops.balance_max : 1;
}

unsigned long long usim_kick_count(const struct saakm_policy *pol, int preempt)
{
	return pol->kicks[!!preempt];
}

int usim_nr_timers(void)
{
	struct hrtimer *t;
	int n = 0;

	for (t = W.timers; t; t = t->next)
		n++;
	return n;
}

unsigned long long usim_event_count(const struct saakm_policy *pol, int ev)
{
	return ev >= 0 && ev < SAAKM_NR_EVENTS ? pol->events[ev] : 0;
}

void usim_attach(struct task_struct *p, struct saakm_policy *pol, int state)
{
	if (p->saakm.policy)
		usim_detach(p);
	list_add_tail(&p->saakm.policy_node, &pol->tasks);
	p->saakm.data = NULL;
	p->saakm.cpu = -1;
	p->saakm.state = state;
	p->saakm.policy = pol;
}

/* The ops table has no "migrated" callback (the event is only counted):
 * the name is mapped to a member for the X-macro, and never asked for. */
#define migrated core_entry
int usim_has_callback(const struct saakm_policy *pol, int ev)
{
	const struct saakm_ops *o = &pol->ops;

	if (ev == SAAKM_EV_MIGRATED)
		return 0;
	if (ev == SAAKM_EV_PREEMPT)	/* its default is tick() */
		return o->preempt || o->tick;
	switch (ev) {
#define HAS(NAME, name) case SAAKM_EV_##NAME: return o->name != NULL;
	SAAKM_EVENTS(HAS)
#undef HAS
	default:
		return 0;
	}
}
#undef migrated

/*
 * Call @fn of @pol with the context set: the callback @ev runs on @cpu for
 * task @tsk (saakm_ctx_set() in the kernel).
 */
#define CALL(ev_, cpu_, tsk, expr) ({			\
	int __saved = W.this_cpu;			\
	W.ctx.ev = (ev_);				\
	W.ctx.p = (tsk);				\
	W.this_cpu = (cpu_);				\
	pol->events[ev_]++;				\
	__typeof__(expr) __r = (expr);			\
	W.ctx.ev = SAAKM_NR_EVENTS;			\
	W.ctx.p = NULL;					\
	W.this_cpu = __saved;				\
	__r;						\
})
#define CALL_VOID(ev_, cpu_, tsk, expr) CALL(ev_, cpu_, tsk, ((expr), 0))

static bool cpu_ok(int cpu)
{
	return cpu >= 0 && cpu < (int)nr_cpu_ids;
}

static long task_ret(struct task_struct *p)
{
	W.last_task = p;
	return p ? p->pid : -1;
}

static long call_inner(struct saakm_policy *pol, int ev, int cpu, struct task_struct *p, int a)
{
	const struct saakm_ops *o = &pol->ops;
	struct saakm_attr attr;
	int tcpu = p ? (int)task_cpu(p) : 0;

	W.last_task = NULL;
	if (!cpu_ok(cpu) && (ev != SAAKM_EV_NEW_PREPARE && ev != SAAKM_EV_UNBLOCK_PREPARE &&
			     ev != SAAKM_EV_TERMINATE && ev != SAAKM_EV_FREE_METADATA &&
			     ev != SAAKM_EV_CHECKPARAM_ATTR && ev != SAAKM_EV_SETPARAM_ATTR)) {
		usim_error(NULL, "usim_call(%s): cpu %d out of range", usim_event_name(ev), cpu);
		return -1;
	}
	if (!cpu_ok(tcpu))
		tcpu = 0;
	/* The task of a per-CPU task event is on that CPU's runqueue: task_cpu(p) == cpu. */
	if (p && (ev == SAAKM_EV_NEW_PLACE || ev == SAAKM_EV_UNBLOCK_PLACE || ev == SAAKM_EV_BLOCK ||
		  ev == SAAKM_EV_YIELD || ev == SAAKM_EV_TICK || ev == SAAKM_EV_PREEMPT))
		p->usim_cpu = cpu;
	switch (ev) {
	case SAAKM_EV_NEW_PREPARE:
		if (p->saakm.policy != pol)
			usim_attach(p, pol, SAAKM_NOT_QUEUED);
		if (!o->new_prepare)
			return task_cpu(p);
		return CALL(ev, tcpu, p, o->new_prepare(pol, p));
	case SAAKM_EV_NEW_PLACE:
		return CALL_VOID(ev, cpu, p, o->new_place(pol, p, cpu));
	case SAAKM_EV_UNBLOCK_PREPARE:
		if (!o->unblock_prepare)
			return task_cpu(p);
		return CALL(ev, tcpu, p, o->unblock_prepare(pol, p));
	case SAAKM_EV_UNBLOCK_PLACE:
		return CALL_VOID(ev, cpu, p, o->unblock_place(pol, p, cpu));
	case SAAKM_EV_BLOCK:
		return CALL_VOID(ev, cpu, p, o->block(pol, p, cpu));
	case SAAKM_EV_YIELD:
		return o->yield ? CALL_VOID(ev, cpu, p, o->yield(pol, p, cpu)) : 0;
	case SAAKM_EV_TICK:
		return o->tick ? CALL_VOID(ev, cpu, p, o->tick(pol, p, cpu)) : 0;
	case SAAKM_EV_PREEMPT:
		/* Counted as PREEMPT either way, as the kernel counts it. */
		if (o->preempt)
			return CALL_VOID(ev, cpu, p, o->preempt(pol, p, cpu));
		return o->tick ? CALL_VOID(ev, cpu, p, o->tick(pol, p, cpu)) : 0;
	case SAAKM_EV_TERMINATE:
		return CALL_VOID(ev, tcpu, p, o->terminate(pol, p));
	case SAAKM_EV_SCHEDULE:
		return task_ret(CALL(ev, cpu, NULL, o->schedule(pol, cpu)));
	case SAAKM_EV_NEWLY_IDLE:
		return o->newly_idle ? CALL(ev, cpu, NULL, o->newly_idle(pol, cpu)) : -1;
	case SAAKM_EV_ENTER_IDLE:
		return o->enter_idle ? CALL_VOID(ev, cpu, NULL, o->enter_idle(pol, cpu)) : 0;
	case SAAKM_EV_EXIT_IDLE:
		return o->exit_idle ? CALL_VOID(ev, cpu, NULL, o->exit_idle(pol, cpu)) : 0;
	case SAAKM_EV_BALANCING_SELECT:
		return o->balancing_select ?
		       CALL(ev, cpu, NULL, o->balancing_select(pol, cpu)) : -1;
	case SAAKM_EV_BALANCE_PICK:
		if (!o->balance_pick || !cpu_ok(a))
			return -1;
		return task_ret(CALL(ev, a, NULL, o->balance_pick(pol, cpu, a)));
	case SAAKM_EV_CORE_ENTRY:
		pol->pcpu[cpu].entered = true;
		return o->core_entry ? CALL_VOID(ev, cpu, NULL, o->core_entry(pol, cpu)) : 0;
	case SAAKM_EV_CORE_EXIT:
		pol->pcpu[cpu].entered = false;
		return o->core_exit ? CALL_VOID(ev, cpu, NULL, o->core_exit(pol, cpu)) : 0;
	case SAAKM_EV_FREE_METADATA:
		if (o->free_metadata)
			CALL_VOID(ev, tcpu, p, o->free_metadata(pol, p));
		usim_detach(p);
		return 0;
	case SAAKM_EV_CHECKPARAM_ATTR:
		attr = (struct saakm_attr){ .nice = task_nice(p), .runtime = p->saakm.runtime,
					    .data = W.attr_data, .size = W.attr_size };
		return o->checkparam_attr ? CALL(ev, tcpu, p, o->checkparam_attr(pol, p, &attr)) : 0;
	case SAAKM_EV_SETPARAM_ATTR:
		attr = (struct saakm_attr){ .nice = task_nice(p), .runtime = p->saakm.runtime,
					    .data = W.attr_data, .size = W.attr_size };
		return o->setparam_attr ? CALL_VOID(ev, tcpu, p, o->setparam_attr(pol, p, &attr)) : 0;
	default:
		usim_error(NULL, "usim_call: event %d has no callback", ev);
		return -1;
	}
}

long usim_call(struct saakm_policy *pol, int ev, int cpu, struct task_struct *p, int a)
{
	long ret = call_inner(pol, ev, cpu, p, a);

	if (W.hooks.call && usim_has_callback(pol, ev))
		W.hooks.call(W.hooks.ctx, pol, ev, cpu, p, a, ret);
	return ret;
}

struct task_struct *usim_last_task(void)
{
	return W.last_task;
}

/* World. */

int usim_setup(int nr_cpus, const struct usim_hooks *hooks)
{
	int cpu, pid;

	if (nr_cpus < 1 || nr_cpus > USIM_MAX_CPUS)
		return -EINVAL;
	for (pid = 0; pid < W.nr_task_slots; pid++)
		if (W.tasks[pid])
			usim_task_free(W.tasks[pid]);
	free(W.tasks);
	memset(W.slots, 0, sizeof(W.slots));	/* a loaded module is forgotten */
	W.nr_policies = 0;
	W.tasks = NULL;
	W.nr_task_slots = 0;
	W.hooks = hooks ? *hooks : (struct usim_hooks){ 0 };
	W.ctx = (struct usim_ctx){ .ev = SAAKM_NR_EVENTS };
	W.this_cpu = 0;
	W.now_ns = 0;
	W.timers = NULL;
	W.allocs = 0;
	W.errors = 0;
	W.last_task = NULL;
	nr_cpu_ids = nr_cpus;
	cpumask_clear(&possible_mask);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		cpumask_set_cpu(cpu, &possible_mask);
	cpumask_copy(&online_mask, &possible_mask);
	for (cpu = 0; cpu < USIM_MAX_CPUS; cpu++) {
		cpumask_clear(&single_masks[cpu]);
		single_masks[cpu].bits[0] = 1UL << cpu;
	}
	usim_set_topology(1, USIM_MAX_CPUS, USIM_MAX_CPUS);
	pcpu_setup();
	return 0;
}

int usim_load_module(int n)
{
	if (n < 0 || n >= nr_modules || !modules[n].init) {
		usim_error(NULL, "usim_load_module: no module %d with a module_init()", n);
		return -ENOENT;
	}
	return modules[n].init();
}

void usim_unload_module(int n)
{
	if (n >= 0 && n < nr_modules && modules[n].exit)
		modules[n].exit();
}

int usim_nr_modules(void)
{
	return nr_modules;
}

unsigned int usim_policy_generation(const struct saakm_policy *pol)
{
	return pol->generation;
}

int usim_load(void)
{
	return usim_load_module(0);
}

void usim_unload(void)
{
	usim_unload_module(0);
}

/* The callback context, for drivers that switch between callbacks (usim.h). */
void usim_call_state_save(struct usim_call_state *s)
{
	s->ev = W.ctx.ev;
	s->p = W.ctx.p;
	s->this_cpu = W.this_cpu;
}

void usim_call_state_restore(const struct usim_call_state *s)
{
	W.ctx.ev = s->ev;
	W.ctx.p = s->p;
	W.this_cpu = s->this_cpu;
}
