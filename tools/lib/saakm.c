// SPDX-License-Identifier: GPL-2.0
/*
 * libsaakm: join SaaKM scheduling policies with sched_setattr() and parse
 * /proc/saakm. See saakm.h for the API. The C library's headers predate
 * SCHED_SAAKM and the SCHED_ATTR_SIZE_VER2 fields, so the syscalls are
 * made directly with our own copy of struct sched_attr.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "saakm.h"


/* --- name tables, from the X-macro lists of <linux/saakm.h> ------------------- */

#define X_STATE(NAME)		[SAAKM_ST_##NAME] = #NAME,
#define X_EVENT(NAME, name)	[SAAKM_EV_##NAME] = #name,
#define X_POLICY(NAME, name)	[SAAKM_POLICY_##NAME] = #name,
const char *const saakm_state_names[SAAKM_NR_STATES] = { SAAKM_STATES(X_STATE) };
const char *const saakm_event_names[SAAKM_NR_EVENTS] = { SAAKM_EVENTS(X_EVENT) };
const char *const saakm_policy_state_names[SAAKM_NR_POLICY_STATES] = {
	SAAKM_POLICY_STATES(X_POLICY)
};

static int index_of(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int saakm_state_index(const char *name)
{
	return index_of(saakm_state_names, SAAKM_NR_STATES, name);
}

int saakm_event_index(const char *name)
{
	return index_of(saakm_event_names, SAAKM_NR_EVENTS, name);
}

int saakm_policy_state_index(const char *name)
{
	return index_of(saakm_policy_state_names, SAAKM_NR_POLICY_STATES, name);
}

/* --- /proc/saakm: one record a line, key=value fields -------------------------- */

const char *saakm_proc_root(void)
{
	const char *root = getenv("SAAKM_PROC");

	return root && *root ? root : "/proc/saakm";
}

FILE *saakm_proc_fopen(const char *file)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", saakm_proc_root(), file);
	return fopen(path, "re");
}

static int have_saakm(void)
{
	struct stat st;

	return stat(saakm_proc_root(), &st) == 0 && S_ISDIR(st.st_mode);
}

int saakm_record_parse(struct saakm_record *rec, const char *line)
{
	char *p = rec->buf, *eq, *end;

	snprintf(rec->buf, sizeof(rec->buf), "%s", line ? line : "");
	rec->buf[strcspn(rec->buf, "\n")] = '\0';
	rec->nr = 0;
	while (rec->nr < SAAKM_RECORD_MAX) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		end = p + strcspn(p, " \t");
		eq = memchr(p, '=', end - p);
		if (eq && eq > p) {
			*eq = '\0';
			/* reason= is free text: the rest of the line */
			if (!strcmp(p, "reason"))
				end = eq + 1 + strlen(eq + 1);
			rec->key[rec->nr] = p;
			rec->val[rec->nr++] = eq + 1;
		}
		if (!*end)
			break;
		*end = '\0';
		p = end + 1;
	}
	return rec->nr;
}

const char *saakm_record_get(const struct saakm_record *rec, const char *key)
{
	for (int i = 0; i < rec->nr; i++)
		if (!strcmp(rec->key[i], key))
			return rec->val[i];
	return NULL;
}

int saakm_record_num(const struct saakm_record *rec, const char *key, long long *val)
{
	const char *s = saakm_record_get(rec, key);
	char *end;

	if (!s)
		return -ENOENT;
	errno = 0;
	*val = strtoll(s, &end, 10);
	return !*s || *end || errno ? -EINVAL : 0;
}

int saakm_proc_each(const char *file,
		    int (*fn)(const struct saakm_record *rec, void *arg), void *arg)
{
	struct saakm_record *rec = malloc(sizeof(*rec));
	char *line = NULL;
	size_t cap = 0;
	int n = 0, ret = 0;
	FILE *f;

	if (!rec)
		return -ENOMEM;
	f = saakm_proc_fopen(file);
	if (!f) {
		ret = errno == ENOENT || errno == ENOTDIR ? -ENOSYS : -errno;
		free(rec);
		return ret;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		if (!saakm_record_parse(rec, line))
			continue;
		n++;
		ret = fn ? fn(rec, arg) : 0;
	}
	fclose(f);
	free(line);
	free(rec);
	return ret ? ret : n;
}

struct find_rec_arg {
	const char *name;
	struct saakm_record *out;
	int found;
};

static int find_rec_one(const struct saakm_record *rec, void *arg)
{
	struct find_rec_arg *fa = arg;
	const char *name = saakm_record_get(rec, "name");

	if (name && !strcmp(name, fa->name)) {
		/* copy, then point the fields into the copy */
		*fa->out = *rec;
		for (int i = 0; i < rec->nr; i++) {
			fa->out->key[i] = fa->out->buf + (rec->key[i] - rec->buf);
			fa->out->val[i] = fa->out->buf + (rec->val[i] - rec->buf);
		}
		fa->found = 1;
	}
	return 0;
}

int saakm_proc_find(const char *file, const char *name, struct saakm_record *rec)
{
	struct find_rec_arg fa = { name, rec, 0 };
	int ret;

	if (!name)
		return -ENOENT;
	ret = saakm_proc_each(file, find_rec_one, &fa);
	if (ret < 0)
		return ret;
	return fa.found ? 0 : -ENOENT;
}

static int rec_int(const struct saakm_record *rec, const char *key, int def)
{
	long long v;

	return saakm_record_num(rec, key, &v) || v < INT32_MIN || v > INT32_MAX ? def : (int)v;
}

/* A policies record into @pi: 0, or -EINVAL if it lacks a valid id or name. */
static int policy_from_record(const struct saakm_record *rec, struct saakm_policy_info *pi)
{
	const char *name = saakm_record_get(rec, "name");
	const char *state = saakm_record_get(rec, "state");

	memset(pi, 0, sizeof(*pi));
	pi->id = rec_int(rec, "id", 0);
	if (pi->id <= 0 || !name || !*name || strlen(name) >= SAAKM_NAME_LEN)
		return -EINVAL;
	strcpy(pi->name, name);
	snprintf(pi->state, sizeof(pi->state), "%s", state ? state : "");
	pi->state_id = saakm_policy_state_index(state);
	pi->tasks = rec_int(rec, "tasks", -1);
	pi->slot = rec_int(rec, "slot", -1);
	pi->balance_ms = rec_int(rec, "balance_ms", -1);
	pi->timeout_ms = rec_int(rec, "timeout_ms", -1);
	pi->unprivileged = rec_int(rec, "unprivileged", -1);
	snprintf(pi->module, sizeof(pi->module), "%s", saakm_record_get(rec, "module") ?: "");
	pi->generation = rec_int(rec, "generation", -1);
	if (saakm_record_num(rec, "upgrade_ns", &pi->upgrade_ns))
		pi->upgrade_ns = -1;
	return 0;
}

struct policy_arg {
	int (*fn)(const struct saakm_policy_info *, void *);
	void *arg;
	int n;
};

static int policy_one(const struct saakm_record *rec, void *arg)
{
	struct policy_arg *pa = arg;
	struct saakm_policy_info pi;

	if (policy_from_record(rec, &pi))
		return 0;
	pa->n++;
	return pa->fn ? pa->fn(&pi, pa->arg) : 0;
}

/* Call @fn for each well-formed policy record; stop if it returns != 0. */
static int each_policy(int (*fn)(const struct saakm_policy_info *, void *),
		       void *arg)
{
	struct policy_arg pa = { fn, arg, 0 };
	int ret = saakm_proc_each("policies", policy_one, &pa);

	return ret < 0 ? ret : pa.n;
}

struct list_arg {
	struct saakm_policy_info *out;
	int max, n;
};

static int list_one(const struct saakm_policy_info *pi, void *arg)
{
	struct list_arg *la = arg;

	if (la->n < la->max)
		la->out[la->n] = *pi;
	la->n++;
	return 0;
}

int saakm_list(struct saakm_policy_info *out, int max)
{
	struct list_arg la = { out, out ? max : 0, 0 };

	return each_policy(list_one, &la);
}

struct find_arg {
	const char *name;
	int id;
	struct saakm_policy_info found;
};

static int find_one(const struct saakm_policy_info *pi, void *arg)
{
	struct find_arg *fa = arg;

	if ((fa->name && strcmp(pi->name, fa->name)) || (!fa->name && pi->id != fa->id))
		return 0;
	fa->found = *pi;
	return 1;
}

static int find(const char *name, int id, struct saakm_policy_info *pi)
{
	struct find_arg fa = { name, id, { 0 } };
	int ret = each_policy(find_one, &fa);

	/* each_policy() returns the number of lines when nothing matched */
	if (ret < 0)
		return ret;
	if (!fa.found.id)
		return -ENOENT;
	*pi = fa.found;
	return 0;
}

int saakm_policy_id(const char *name_or_id)
{
	struct saakm_policy_info pi;
	const char *s;
	char *end;
	long id;
	int ret;

	if (!name_or_id || !*name_or_id)
		return -ENOENT;
	ret = find(name_or_id, 0, &pi);
	if (ret != -ENOENT)
		return ret ? ret : pi.id;
	for (s = name_or_id; *s; s++)
		if (!isdigit((unsigned char)*s))
			return -ENOENT;
	errno = 0;
	id = strtol(name_or_id, &end, 10);
	if (errno || id <= 0 || id > INT32_MAX)
		return -ENOENT;
	ret = find(NULL, (int)id, &pi);
	return ret ? ret : pi.id;
}

int saakm_policy_name(int id, char *buf, size_t len)
{
	struct saakm_policy_info pi;
	int ret = find(NULL, id, &pi);

	if (!ret && len)
		snprintf(buf, len, "%s", pi.name);
	return ret;
}

int saakm_policy_get(const char *name, struct saakm_policy_info *pi)
{
	if (!name || !*name)
		return -ENOENT;
	return find(name, 0, pi);
}

int saakm_policy_tasks(const char *name)
{
	struct saakm_policy_info pi;
	int ret = saakm_policy_get(name, &pi);

	return ret ? ret : pi.tasks;
}

int saakm_events_get(const char *name, struct saakm_events *ev)
{
	struct saakm_record *rec = malloc(sizeof(*rec));
	long long v;
	int ret;

	if (!rec)
		return -ENOMEM;
	ret = saakm_proc_find("events", name, rec);
	if (!ret) {
		memset(ev, 0, sizeof(*ev));
		snprintf(ev->name, sizeof(ev->name), "%s", name);
		for (int i = 0; i < SAAKM_NR_EVENTS; i++)
			ev->count[i] = saakm_record_num(rec, saakm_event_names[i], &v) ? -1 : v;
		ev->bad_transitions = saakm_record_num(rec, "bad_transitions", &v) ? -1 : v;
	}
	free(rec);
	return ret;
}

long long saakm_event_count(const char *name, const char *key)
{
	struct saakm_record *rec = malloc(sizeof(*rec));
	long long v = -ENOENT;
	int ret;

	if (!rec)
		return -ENOMEM;
	ret = saakm_proc_find("events", name, rec);
	if (ret)
		v = ret;
	else if (saakm_record_num(rec, key, &v) || v < 0)
		v = -ENOENT;
	free(rec);
	return v;
}

int saakm_error_get(const char *name, struct saakm_error *err)
{
	struct saakm_record *rec = malloc(sizeof(*rec));
	const char *kind, *reason;
	int ret;

	if (!rec)
		return -ENOMEM;
	ret = saakm_proc_find("errors", name, rec);
	if (!ret) {
		kind = saakm_record_get(rec, "kind");
		reason = saakm_record_get(rec, "reason");
		memset(err, 0, sizeof(*err));
		snprintf(err->name, sizeof(err->name), "%s", name);
		snprintf(err->kind, sizeof(err->kind), "%s", kind ? kind : "");
		snprintf(err->reason, sizeof(err->reason), "%s", reason ? reason : "");
	}
	free(rec);
	return ret;
}

/*
 * Read the comma-separated counts of a wake_hist= field into @hist.
 * Return: their sum, or -1 (and @hist all 0) if @s is absent or malformed.
 */
static long long parse_hist(const char *s, long long *hist)
{
	long long sum = 0;
	char *end;
	int i;

	memset(hist, 0, SAAKM_WAKE_HIST_BUCKETS * sizeof(*hist));
	for (i = 0; s && i < SAAKM_WAKE_HIST_BUCKETS; i++) {
		errno = 0;
		hist[i] = strtoll(s, &end, 10);
		if (end == s || errno || hist[i] < 0 ||
		    *end != (i == SAAKM_WAKE_HIST_BUCKETS - 1 ? '\0' : ','))
			break;
		sum += hist[i];
		s = end + 1;
	}
	if (i == SAAKM_WAKE_HIST_BUCKETS)
		return sum;
	memset(hist, 0, SAAKM_WAKE_HIST_BUCKETS * sizeof(*hist));
	return -1;
}

double saakm_hist_bound_us(int i)
{
	return i >= SAAKM_WAKE_HIST_BUCKETS - 1 ? -1 : (double)(1ULL << i);
}

double saakm_hist_quantile(const long long *hist, double q)
{
	long long total = 0, below = 0;
	double want, lo;
	int i;

	for (i = 0; i < SAAKM_WAKE_HIST_BUCKETS; i++)
		total += hist[i];
	if (total <= 0)
		return -1;
	want = q * total;
	for (i = 0; i < SAAKM_WAKE_HIST_BUCKETS - 1; i++) {
		if (below + hist[i] >= want && hist[i])
			break;
		below += hist[i];
	}
	lo = i ? saakm_hist_bound_us(i - 1) : 0;
	if (i == SAAKM_WAKE_HIST_BUCKETS - 1)
		return lo;
	return lo + (saakm_hist_bound_us(i) - lo) * (want - below) / hist[i];
}

struct cpus_arg {
	const char *name;
	struct saakm_cpu_info *out;
	int max, n;
};

static int cpus_one(const struct saakm_record *rec, void *arg)
{
	struct cpus_arg *ca = arg;
	const char *name = saakm_record_get(rec, "name");
	struct saakm_cpu_info ci = { .cpu = rec_int(rec, "cpu", -1) };

	if (ci.cpu < 0 || !name || strlen(name) >= SAAKM_NAME_LEN ||
	    (ca->name && strcmp(name, ca->name)))
		return 0;
	strcpy(ci.name, name);
	if (saakm_record_num(rec, "ready", &ci.ready))
		ci.ready = -1;
	if (saakm_record_num(rec, "parked", &ci.parked))
		ci.parked = -1;
	if (saakm_record_num(rec, "picks", &ci.picks))
		ci.picks = -1;
	if (saakm_record_num(rec, "migrations", &ci.migrations))
		ci.migrations = -1;
	if (saakm_record_num(rec, "wake_sum_ns", &ci.wake_sum_ns))
		ci.wake_sum_ns = -1;
	ci.wake_count = parse_hist(saakm_record_get(rec, "wake_hist"), ci.wake_hist);
	if (ca->n < ca->max)
		ca->out[ca->n] = ci;
	ca->n++;
	return 0;
}

int saakm_cpus(const char *name, struct saakm_cpu_info *out, int max)
{
	struct cpus_arg ca = { name, out, out ? max : 0, 0 };
	int ret = saakm_proc_each("cpus", cpus_one, &ca);

	return ret < 0 ? ret : ca.n;
}

static int getattr(pid_t pid, struct saakm_sched_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	if (syscall(SYS_sched_getattr, pid, attr, sizeof(*attr), 0))
		return -errno;
	return 0;
}

int saakm_set_nice(pid_t pid, int id, int nice, const void *blob, size_t size,
		   unsigned flags)
{
	struct saakm_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_SAAKM,
		.sched_nice = nice,
		.sched_saakm_id = id,
		.sched_saakm_attr_size = blob ? size : 0,
		.sched_saakm_attr = blob ? (uintptr_t)blob : 0,
	};
	int err;

	if (id < 0 || flags & ~SAAKM_RESET_ON_FORK)
		return -EINVAL;
	if (blob && size > SAAKM_ATTR_MAX_SIZE)
		return -E2BIG;
	if (flags & SAAKM_RESET_ON_FORK)
		attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
	if (!syscall(SYS_sched_setattr, pid, &attr, 0))
		return 0;
	err = errno;
	/* A kernel without the VER2 fields says E2BIG and writes back its size. */
	if (err == E2BIG && attr.size < SCHED_ATTR_SIZE_VER2)
		return -ENOSYS;
	if (err == EINVAL && !have_saakm())
		return -ENOSYS;
	return -err;
}

int saakm_set(pid_t pid, int id, const void *blob, size_t size, unsigned flags)
{
	struct saakm_sched_attr cur;
	int ret = getattr(pid, &cur);

	if (ret)
		return ret;
	return saakm_set_nice(pid, id, cur.sched_nice, blob, size, flags);
}

int saakm_get_full(pid_t pid, int *id, int *prio, int *reset_on_fork)
{
	struct saakm_sched_attr attr;
	int ret = getattr(pid, &attr);

	if (ret)
		return ret;
	if (id)
		*id = attr.sched_policy == SCHED_SAAKM ? (int)attr.sched_saakm_id : 0;
	if (prio)
		*prio = attr.sched_priority;
	if (reset_on_fork)
		*reset_on_fork = !!(attr.sched_flags & SCHED_FLAG_RESET_ON_FORK);
	return attr.sched_policy;
}

int saakm_get(pid_t pid, int *id)
{
	return saakm_get_full(pid, id, NULL, NULL);
}

const char *saakm_sched_name(int policy)
{
	static const char *const names[] = {
		"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH",
		"SCHED_ISO", "SCHED_IDLE", "SCHED_DEADLINE", "SCHED_EXT",
		"SCHED_SAAKM",
	};

	if (policy < 0 || policy >= (int)(sizeof(names) / sizeof(names[0])))
		return "SCHED_UNKNOWN";
	return names[policy];
}

const char *saakm_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case ENOSYS:
		return "this kernel has no SaaKM support (/proc/saakm is missing)";
	case ENOENT:
		return "no such policy is loaded (see 'saakm list')";
	case EPERM:
		return "permission denied: joining a SaaKM policy needs CAP_SYS_NICE (try as root)";
	case ESRCH:
		return "no such process";
	case E2BIG:
		return "policy attribute blob too large (at most 4096 bytes)";
	case EINVAL:
		return "invalid argument: the policy is not enabled or refused the attributes";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
