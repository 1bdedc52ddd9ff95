// SPDX-License-Identifier: GPL-2.0
/*
 * libsaakm recordings: read, write and check recording files, and convert
 * the saakm:saakm_record trace text into records. See saakm_rec.h.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "saakm_rec.h"

/* The file holds struct saakm_rec as is: no padding the compiler chose. */
static_assert(sizeof(struct saakm_rec) == 48, "struct saakm_rec is 48 bytes on every ABI");

/* --- name and property tables ---------------------------------------------------- */

#define X_KIND(NAME, name)	[SAAKM_REC_##NAME] = #NAME,
const char *const saakm_rec_kind_names[SAAKM_NR_REC_KINDS] = { SAAKM_REC_KINDS(X_KIND) };
#undef X_KIND

#define X_INPUT(NAME, name)	[SAAKM_INPUT_##NAME] = #name,
const char *const saakm_input_names[SAAKM_NR_INPUTS] = { SAAKM_INPUTS(X_INPUT) };
#undef X_INPUT

const char *saakm_input_name(unsigned int which)
{
	return which < SAAKM_NR_INPUTS ? saakm_input_names[which] : "?";
}

int saakm_rec_kind_index(const char *name)
{
	for (int i = 0; name && i < SAAKM_NR_REC_KINDS; i++)
		if (!strcasecmp(saakm_rec_kind_names[i], name))
			return i;
	return -1;
}

bool saakm_rec_transition_ok(int from, int to)
{
#define X_TRANS(FROM, TO) if (from == SAAKM_ST_##FROM && to == SAAKM_ST_##TO) return true;
	SAAKM_TRANSITIONS(X_TRANS)
#undef X_TRANS
	return false;
}

enum saakm_ev_ret saakm_ev_returns(int ev)
{
	switch (ev) {
	case SAAKM_EV_SCHEDULE:
	case SAAKM_EV_BALANCE_PICK:
		return SAAKM_RET_TASK;
	case SAAKM_EV_NEW_PREPARE:
	case SAAKM_EV_UNBLOCK_PREPARE:
	case SAAKM_EV_NEWLY_IDLE:
	case SAAKM_EV_BALANCING_SELECT:
	case SAAKM_EV_CHECKPARAM_ATTR:
		return SAAKM_RET_INT;
	default:
		return SAAKM_RET_VOID;
	}
}

bool saakm_ev_has_cpu(int ev)
{
	switch (ev) {
	case SAAKM_EV_NEW_PREPARE:
	case SAAKM_EV_UNBLOCK_PREPARE:
	case SAAKM_EV_TERMINATE:
	case SAAKM_EV_FREE_METADATA:
	case SAAKM_EV_CHECKPARAM_ATTR:
	case SAAKM_EV_SETPARAM_ATTR:
		return false;
	default:
		return true;
	}
}

bool saakm_ev_has_task(int ev)
{
	switch (ev) {
	case SAAKM_EV_SCHEDULE:
	case SAAKM_EV_NEWLY_IDLE:
	case SAAKM_EV_ENTER_IDLE:
	case SAAKM_EV_EXIT_IDLE:
	case SAAKM_EV_BALANCING_SELECT:
	case SAAKM_EV_BALANCE_PICK:
	case SAAKM_EV_CORE_ENTRY:
	case SAAKM_EV_CORE_EXIT:
	case SAAKM_EV_MIGRATED:
		return false;
	default:
		return true;
	}
}

/* --- recordings in memory ---------------------------------------------------------- */

static void copy_name(char *dst, size_t len, const char *src)
{
	memset(dst, 0, len);
	if (src)
		strncpy(dst, src, len - 1);
}

void saakm_rec_header_init(struct saakm_rec_header *h, const char *policy,
			   const char *module, const char *params, unsigned int nr_cpus)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, SAAKM_REC_MAGIC, sizeof(h->magic));
	h->version = SAAKM_REC_VERSION;
	h->header_size = sizeof(*h);
	h->nr_cpus = nr_cpus;
	copy_name(h->policy, sizeof(h->policy), policy);
	copy_name(h->module, sizeof(h->module), module);
	copy_name(h->params, sizeof(h->params), params);
}

int saakm_rec_push(struct saakm_recording *rec, const struct saakm_rec *r)
{
	if (rec->nr == rec->alloc) {
		size_t n = rec->alloc ? rec->alloc * 2 : 4096;
		struct saakm_rec *p = realloc(rec->recs, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		rec->recs = p;
		rec->alloc = n;
	}
	rec->recs[rec->nr++] = *r;
	return 0;
}

void saakm_recording_free(struct saakm_recording *rec)
{
	free(rec->recs);
	rec->recs = NULL;
	rec->nr = rec->alloc = 0;
}

/* --- checks -------------------------------------------------------------------------- */

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool nul_terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

static int check_header(const struct saakm_rec_header *h, char *err, size_t len)
{
	if (memcmp(h->magic, SAAKM_REC_MAGIC, sizeof(h->magic)))
		return fail(err, len, "not a SaaKM recording (no %s magic)", SAAKM_REC_MAGIC);
	if (h->version != SAAKM_REC_VERSION)
		return fail(err, len, "recording version %u, this saakm reads version %u",
			    h->version, SAAKM_REC_VERSION);
	if (h->header_size < sizeof(*h))
		return fail(err, len, "header size %u, at least %zu expected",
			    h->header_size, sizeof(*h));
	if (!nul_terminated(h->policy, sizeof(h->policy)) ||
	    !nul_terminated(h->module, sizeof(h->module)) ||
	    !nul_terminated(h->params, sizeof(h->params)))
		return fail(err, len, "corrupt header: policy, module or params not terminated");
	if (!h->nr_cpus || h->nr_cpus > 4096)
		return fail(err, len, "corrupt header: %u CPUs", h->nr_cpus);
	return 0;
}

static bool is_state(uint64_t s)
{
	return s < SAAKM_NR_STATES;
}

/* The problem with record @r, or NULL. */
static const char *bad_record(const struct saakm_rec *r)
{
	switch (r->kind) {
	case SAAKM_REC_CALL:
	case SAAKM_REC_RET:
		return r->ev < SAAKM_NR_EVENTS ? NULL : "unknown event";
	case SAAKM_REC_INPUT:
		return r->ev < SAAKM_NR_INPUTS ? NULL : "unknown input";
	case SAAKM_REC_STATE:
	case SAAKM_REC_FORCE:
		return is_state(r->a) && is_state(r->c) && r->a >= 0 ? NULL : "unknown state";
	case SAAKM_REC_ERROR:
		return NULL;
	default:
		return "unknown kind";
	}
}

int saakm_rec_check(const struct saakm_rec_header *h, const struct saakm_rec *recs,
		    size_t nr, char *err, size_t errlen)
{
	const char *why;
	int ret = check_header(h, err, errlen);

	if (ret)
		return ret;
	for (size_t i = 0; i < nr; i++) {
		why = bad_record(&recs[i]);
		if (!why && recs[i].on_cpu >= h->nr_cpus)
			why = "emitting CPU (on_cpu) out of range";
		if (!why && (recs[i].pad[0] || recs[i].pad[1] || recs[i].pad[2]))
			why = "padding not zero";
		if (why)
			return fail(err, errlen, "record %zu (seq %llu): %s (kind %u ev %u)", i,
				    (unsigned long long)recs[i].seq, why, recs[i].kind, recs[i].ev);
		if (!recs[i].seq || (i && recs[i].seq <= recs[i - 1].seq))
			return fail(err, errlen, "record %zu: seq %llu after %llu: not sorted", i,
				    (unsigned long long)recs[i].seq,
				    (unsigned long long)(i ? recs[i - 1].seq : 0));
	}
	return 0;
}

/* --- files (little-endian) ---------------------------------------------------------- */

static void rec_to_le(struct saakm_rec *r)
{
	r->seq = htole64(r->seq);
	r->ts_ns = htole64(r->ts_ns);
	r->c = htole64(r->c);
	r->pid = (int32_t)htole32((uint32_t)r->pid);
	r->a = (int32_t)htole32((uint32_t)r->a);
	r->b = (int32_t)htole32((uint32_t)r->b);
	r->cpu = (int16_t)htole16((uint16_t)r->cpu);
	r->on_cpu = htole16(r->on_cpu);
}

static void rec_from_le(struct saakm_rec *r)
{
	r->seq = le64toh(r->seq);
	r->ts_ns = le64toh(r->ts_ns);
	r->c = le64toh(r->c);
	r->pid = (int32_t)le32toh((uint32_t)r->pid);
	r->a = (int32_t)le32toh((uint32_t)r->a);
	r->b = (int32_t)le32toh((uint32_t)r->b);
	r->cpu = (int16_t)le16toh((uint16_t)r->cpu);
	r->on_cpu = le16toh(r->on_cpu);
}

static void header_swap(struct saakm_rec_header *h, bool to_le)
{
	h->version = to_le ? htole32(h->version) : le32toh(h->version);
	h->header_size = to_le ? htole32(h->header_size) : le32toh(h->header_size);
	h->nr_cpus = to_le ? htole32(h->nr_cpus) : le32toh(h->nr_cpus);
	h->flags = to_le ? htole32(h->flags) : le32toh(h->flags);
	h->nr_records = to_le ? htole64(h->nr_records) : le64toh(h->nr_records);
	h->lost = to_le ? htole64(h->lost) : le64toh(h->lost);
}

/* Write records in batches, converted to little-endian. */
static int write_recs(FILE *f, const struct saakm_rec *recs, size_t nr)
{
	struct saakm_rec buf[1024];

	for (size_t i = 0; i < nr;) {
		size_t n = nr - i < 1024 ? nr - i : 1024;

		memcpy(buf, recs + i, n * sizeof(*buf));
		for (size_t j = 0; j < n; j++)
			rec_to_le(&buf[j]);
		if (fwrite(buf, sizeof(*buf), n, f) != n)
			return -EIO;
		i += n;
	}
	return 0;
}

int saakm_rec_write(const char *path, const struct saakm_rec_header *h,
		    const struct saakm_rec *recs, size_t nr, char *err, size_t errlen)
{
	struct saakm_rec_header out = *h;
	int ret;
	FILE *f;

	out.nr_records = nr;
	out.header_size = sizeof(out);
	ret = saakm_rec_check(&out, recs, nr, err, errlen);
	if (ret)
		return ret;
	f = fopen(path, "we");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	header_swap(&out, true);
	ret = fwrite(&out, sizeof(out), 1, f) == 1 ? write_recs(f, recs, nr) : -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		snprintf(err, errlen, "%s: write error: %s", path, strerror(-ret));
	return ret;
}

/* Read the header at the start of @f, checked; the file is @size bytes. */
static int read_header(FILE *f, off_t size, struct saakm_rec_header *h, char *err, size_t len)
{
	size_t got = fread(h, 1, sizeof(*h), f);

	if (got < sizeof(*h)) {
		if (got >= sizeof(h->magic) && memcmp(h->magic, SAAKM_REC_MAGIC, sizeof(h->magic)))
			return fail(err, len, "not a SaaKM recording (no %s magic)", SAAKM_REC_MAGIC);
		return fail(err, len, "short file: %zu bytes, the header alone is %zu", got, sizeof(*h));
	}
	header_swap(h, false);
	if (check_header(h, err, len))
		return -EINVAL;
	if ((uint64_t)size < h->header_size)
		return fail(err, len, "short file: %lld bytes, header says %u",
			    (long long)size, h->header_size);
	if (((uint64_t)size - h->header_size) / sizeof(struct saakm_rec) != h->nr_records ||
	    ((uint64_t)size - h->header_size) % sizeof(struct saakm_rec))
		return fail(err, len, "%llu records expected, the file has room for %.1f (truncated or corrupt)",
			    (unsigned long long)h->nr_records,
			    (double)((uint64_t)size - h->header_size) / sizeof(struct saakm_rec));
	/* a later version's longer header: skip what we do not know */
	if (fseeko(f, h->header_size, SEEK_SET))
		return -EIO;
	return 0;
}

int saakm_rec_read(const char *path, struct saakm_recording *rec, char *err, size_t errlen)
{
	struct stat st;
	char why[200] = "";
	int ret;
	FILE *f;

	memset(rec, 0, sizeof(*rec));
	f = fopen(path, "re");
	if (!f || fstat(fileno(f), &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		if (f)
			fclose(f);
		return ret;
	}
	ret = read_header(f, st.st_size, &rec->hdr, why, sizeof(why));
	if (!ret && rec->hdr.nr_records) {
		rec->recs = malloc(rec->hdr.nr_records * sizeof(*rec->recs));
		if (!rec->recs)
			ret = fail(why, sizeof(why), "out of memory for %llu records",
				   (unsigned long long)rec->hdr.nr_records);
		else if (fread(rec->recs, sizeof(*rec->recs), rec->hdr.nr_records, f) !=
			 rec->hdr.nr_records)
			ret = fail(why, sizeof(why), "read error");
		rec->nr = rec->alloc = rec->recs ? rec->hdr.nr_records : 0;
	}
	fclose(f);
	for (size_t i = 0; !ret && i < rec->nr; i++)
		rec_from_le(&rec->recs[i]);
	if (!ret)
		ret = saakm_rec_check(&rec->hdr, rec->recs, rec->nr, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why);
		saakm_recording_free(rec);
	}
	return ret;
}

/* --- trace text ---------------------------------------------------------------------- */

#define TRACE_MARK " saakm_record: "

/* Parse a decimal signed number at *@s (or, if @names, a name); advance. */
static int parse_field(const char *s, const char **end, long long *v, unsigned long long *u)
{
	bool neg = *s == '-';
	unsigned long long n = 0;
	const char *p = s + neg;
	int digits = 0;

	/* by hand: this runs for every field of millions of lines */
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (n > (~0ULL - 9) / 10 && (n > ~0ULL / 10 || (unsigned)(*p - '0') > ~0ULL % 10))
			return -EINVAL;
		n = n * 10 + (*p - '0');
	}
	if (!digits || (*p && *p != ' ' && *p != '\n' && *p != '\r') ||
	    (neg && n > (unsigned long long)LLONG_MAX + 1))
		return -EINVAL;
	*u = neg ? -n : n;
	*v = (long long)*u;
	*end = p;
	return 0;
}

/*
 * The timestamp ending just before the marker at @mark ("  1234.567890: "):
 * seconds with a fraction of 6 (µs, tracefs' text) or 9 digits, or a bare
 * counter for clocks that are not in ns.
 */
static int parse_ts(const char *line, const char *mark, uint64_t *ts)
{
	const char *e = mark, *b, *dot = NULL;
	unsigned long long secs = 0, frac = 0;
	int digits = 0;

	if (e == line || e[-1] != ':')
		return -EINVAL;
	e--;
	for (b = e; b > line && (b[-1] == '.' || (b[-1] >= '0' && b[-1] <= '9')); b--)
		if (b[-1] == '.')
			dot = b - 1;
	if (b == e)
		return -EINVAL;
	for (const char *p = b; p < e; p++) {
		if (p == dot)
			continue;
		if (dot && p > dot) {
			frac = frac * 10 + (*p - '0');
			digits++;
		} else {
			secs = secs * 10 + (*p - '0');
		}
	}
	if (!dot) {
		*ts = secs;
		return 0;
	}
	while (digits < 9)
		frac *= 10, digits++;
	if (digits > 9)
		return -EINVAL;
	*ts = secs * 1000000000ULL + frac;
	return 0;
}

/*
 * The emitting CPU: the "[CPU]" column before the timestamp at @ts_start
 * (the last bracketed number before it: a task's comm may hold brackets).
 */
static int parse_on_cpu(const char *line, const char *ts_start, uint16_t *cpu)
{
	const char *close = ts_start, *open;
	unsigned long v = 0;

	while (close > line && close[-1] != ']')
		close--;
	if (close == line)
		return -EINVAL;
	close--;
	for (open = close; open > line && open[-1] >= '0' && open[-1] <= '9'; open--)
		;
	if (open == line || open == close || open[-1] != '[')
		return -EINVAL;
	for (const char *p = open; p < close; p++)
		v = v * 10 + (*p - '0');
	if (v > UINT16_MAX)
		return -EINVAL;
	*cpu = v;
	return 0;
}

/* Where the timestamp before the marker at @mark starts. */
static const char *ts_start(const char *line, const char *mark)
{
	const char *b = mark - 1;	/* the ':' */

	while (b > line && (b[-1] == '.' || (b[-1] >= '0' && b[-1] <= '9')))
		b--;
	return b;
}

enum { F_POLICY, F_SEQ, F_KIND, F_EV, F_CPU, F_PID, F_A, F_B, F_C, F_ON_CPU, NR_FIELDS };
static const char *const field_names[NR_FIELDS] = {
	"policy", "seq", "kind", "ev", "cpu", "pid", "a", "b", "c", "on_cpu",
};
/* on_cpu= is optional: the [CPU] column says it too. */
#define REQUIRED_FIELDS ((1u << F_ON_CPU) - 1)

/* Index of key @k (@n bytes) in field_names, or -1. */
static int field_index(const char *k, size_t n)
{
	for (int i = 0; i < NR_FIELDS; i++)
		if (strlen(field_names[i]) == n && !memcmp(field_names[i], k, n))
			return i;
	return -1;
}

/* The key=value fields after the marker, into @v (@u for c). */
static int parse_fields(const char *s, long long v[NR_FIELDS], unsigned long long *c,
			unsigned int *seen_out)
{
	unsigned int seen = 0;
	unsigned long long u;
	const char *eq, *end;
	int i;

	while (*s && *s != '\n' && *s != '\r') {
		while (*s == ' ')
			s++;
		if (!*s || *s == '\n' || *s == '\r')
			break;
		for (eq = s; *eq && *eq != '=' && *eq != ' '; eq++)
			;
		if (*eq != '=')
			return -EINVAL;
		i = field_index(s, eq - s);
		if (i < 0 || parse_field(eq + 1, &end, &v[i], &u))
			return -EINVAL;
		if (i == F_C)
			*c = u;
		seen |= 1u << i;
		s = end;
	}
	*seen_out = seen;
	return (seen & REQUIRED_FIELDS) == REQUIRED_FIELDS ? 0 : -EINVAL;
}

static bool fits(long long v, long long min, long long max)
{
	return v >= min && v <= max;
}

int saakm_rec_parse_line(const char *line, struct saakm_rec *r, int *policy)
{
	const char *mark = strstr(line, TRACE_MARK);
	long long v[NR_FIELDS];
	unsigned long long c = 0;
	unsigned int seen;
	uint64_t ts;

	if (!mark || line[0] == '#')
		return 0;
	memset(r, 0, sizeof(*r));
	if (parse_ts(line, mark, &ts) ||
	    parse_fields(mark + strlen(TRACE_MARK), v, &c, &seen))
		return -EINVAL;
	r->ts_ns = ts;
	if (seen & (1u << F_ON_CPU)) {
		if (!fits(v[F_ON_CPU], 0, UINT16_MAX))
			return -EINVAL;
		r->on_cpu = v[F_ON_CPU];
	} else if (parse_on_cpu(line, ts_start(line, mark), &r->on_cpu)) {
		return -EINVAL;
	}
	if (!fits(v[F_POLICY], 0, INT32_MAX) || v[F_SEQ] <= 0 || !fits(v[F_KIND], 0, 255) ||
	    !fits(v[F_EV], 0, 255) || !fits(v[F_CPU], -1, INT16_MAX) ||
	    !fits(v[F_PID], INT32_MIN, INT32_MAX) || !fits(v[F_A], INT32_MIN, INT32_MAX) ||
	    !fits(v[F_B], INT32_MIN, INT32_MAX))
		return -EINVAL;
	*policy = v[F_POLICY];
	r->seq = v[F_SEQ];
	r->kind = v[F_KIND];
	r->ev = v[F_EV];
	r->cpu = v[F_CPU];
	r->pid = v[F_PID];
	r->a = v[F_A];
	r->b = v[F_B];
	r->c = c;
	return 1;
}

/* "CPU:3 [LOST 1234 EVENTS]": the ring buffer overwrote or dropped events. */
static unsigned long long lost_in_line(const char *line)
{
	const char *p = strstr(line, "[LOST ");

	return p && line[0] != '#' ? strtoull(p + 6, NULL, 10) : 0;
}

int saakm_rec_parse_trace(FILE *f, int policy, struct saakm_recording *rec,
			  struct saakm_trace_stats *st)
{
	struct saakm_rec r;
	size_t cap = 0;
	char *line = NULL;
	int ret = 0, pol, n;

	memset(st, 0, sizeof(*st));
	while (!ret && getline(&line, &cap, f) > 0) {
		st->lines++;
		n = saakm_rec_parse_line(line, &r, &pol);
		if (n < 0) {
			if (!st->bad++)
				st->first_bad_line = st->lines;
		} else if (!n) {
			st->lost_lines += lost_in_line(line);
		} else if (policy && pol != policy) {
			st->other_policy++;
		} else {
			ret = saakm_rec_push(rec, &r);
		}
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	return ret;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct saakm_rec *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int saakm_rec_sort(struct saakm_recording *rec, uint64_t *dup)
{
	size_t i;

	/* The trace merges per-CPU buffers by time, so it is nearly sorted. */
	for (i = 1; i < rec->nr && rec->recs[i - 1].seq < rec->recs[i].seq; i++)
		;
	if (i < rec->nr)
		qsort(rec->recs, rec->nr, sizeof(*rec->recs), cmp_seq);
	for (i = 1; i < rec->nr; i++) {
		if (rec->recs[i].seq == rec->recs[i - 1].seq) {
			*dup = rec->recs[i].seq;
			return -EEXIST;
		}
	}
	return 0;
}

uint64_t saakm_rec_gaps(const struct saakm_rec *recs, size_t nr, uint64_t *first_missing)
{
	uint64_t next = 1, missing = 0;

	if (first_missing)
		*first_missing = 0;
	for (size_t i = 0; i < nr; i++) {
		if (recs[i].seq > next) {
			if (first_missing && !missing)
				*first_missing = next;
			missing += recs[i].seq - next;
		}
		if (recs[i].seq >= next)
			next = recs[i].seq + 1;
	}
	return missing;
}

int saakm_rec_cpu_lost(const char *stats_path, uint64_t *lost)
{
	static const char *const keys[] = { "overrun:", "commit overrun:", "dropped events:" };
	char line[256];
	FILE *f = fopen(stats_path, "re");

	*lost = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				*lost += strtoull(line + strlen(keys[i]), NULL, 10);
	fclose(f);
	return 0;
}

/* --- text -------------------------------------------------------------------------- */

/*
 * Names of events and states, from the same X-macros as libsaakm's tables
 * in saakm.c: the replay program links this file without saakm.c, whose
 * saakm_policy_id() is a different function from the policy API's.
 */
#define X_EV(NAME, name)	[SAAKM_EV_##NAME] = #name,
#define X_ST(NAME)		[SAAKM_ST_##NAME] = #NAME,
static const char *const ev_names[SAAKM_NR_EVENTS] = { SAAKM_EVENTS(X_EV) };
static const char *const st_names[SAAKM_NR_STATES] = { SAAKM_STATES(X_ST) };
#undef X_EV
#undef X_ST

const char *saakm_rec_event_name(int ev)
{
	return ev >= 0 && ev < SAAKM_NR_EVENTS ? ev_names[ev] : "?";
}

const char *saakm_rec_state_name(uint64_t s)
{
	return s < SAAKM_NR_STATES ? st_names[s] : "?";
}

#define ev_name saakm_rec_event_name
#define state_name saakm_rec_state_name

static void format_call(const struct saakm_rec *r, char *buf, size_t len)
{
	int n;

	if (r->ev == SAAKM_EV_BALANCE_PICK)
		n = snprintf(buf, len, "CALL  balance_pick src %d dst %d", r->cpu, r->a);
	else
		n = snprintf(buf, len, "CALL  %s cpu %d", ev_name(r->ev), r->cpu);
	if (n >= 0 && (size_t)n < len && saakm_ev_has_task(r->ev))
		snprintf(buf + n, len - n, " pid %d nice %d affinity %#llx", r->pid, r->b,
			 (unsigned long long)r->c);
}

static void format_ret(const struct saakm_rec *r, char *buf, size_t len)
{
	switch (saakm_ev_returns(r->ev)) {
	case SAAKM_RET_TASK:
		if (r->a < 0)
			snprintf(buf, len, "RET   %s cpu %d -> NULL", ev_name(r->ev), r->cpu);
		else
			snprintf(buf, len, "RET   %s cpu %d -> pid %d", ev_name(r->ev), r->cpu, r->a);
		break;
	case SAAKM_RET_INT:
		snprintf(buf, len, "RET   %s cpu %d -> %d", ev_name(r->ev), r->cpu, r->a);
		break;
	default:
		snprintf(buf, len, "RET   %s cpu %d", ev_name(r->ev), r->cpu);
	}
}

const char *saakm_rec_format(const struct saakm_rec *r, char *buf, size_t len)
{
	switch (r->kind) {
	case SAAKM_REC_CALL:
		format_call(r, buf, len);
		break;
	case SAAKM_REC_RET:
		format_ret(r, buf, len);
		break;
	case SAAKM_REC_STATE:
		snprintf(buf, len, "STATE pid %d %s -> %s cpu %d rq %d", r->pid, state_name(r->c),
			 state_name(r->a), r->cpu, r->b);
		break;
	case SAAKM_REC_FORCE:
		snprintf(buf, len, "FORCE pid %d %s -> %s (class, cpu %d)", r->pid,
			 state_name(r->c), state_name(r->a), r->cpu);
		break;
	case SAAKM_REC_INPUT:
		if (r->ev == SAAKM_INPUT_CAN_MIGRATE)
			snprintf(buf, len, "INPUT can_migrate pid %d dst %d = %llu", r->pid, r->a,
				 (unsigned long long)r->c);
		else if (r->ev == SAAKM_INPUT_READ_CPU)
			snprintf(buf, len, "INPUT read_cpu cpu %d = %llu", r->a, (unsigned long long)r->c);
		else if (r->ev == SAAKM_INPUT_CLOCK)
			snprintf(buf, len, "INPUT clock = %llu", (unsigned long long)r->c);
		else
			snprintf(buf, len, "INPUT %s pid %d = %llu", saakm_input_name(r->ev), r->pid,
				 (unsigned long long)r->c);
		break;
	case SAAKM_REC_ERROR:
		snprintf(buf, len, "ERROR (policy error or ejection)");
		break;
	default:
		snprintf(buf, len, "kind %u?", r->kind);
	}
	return buf;
}

/* --- the kernel's recording arrays -------------------------------------------------- */

/*
 * Append slot @sl to @rec: its record, and for a CALL the STATE and the RET
 * folded into its slot. They are pushed out of order; the caller sorts.
 */
static int push_slot(struct saakm_recording *rec, const struct saakm_rec_slot *sl)
{
	struct saakm_rec r = {
		.seq = sl->seq, .ts_ns = sl->ts_ns, .c = sl->c, .pid = sl->pid, .a = sl->a,
		.b = sl->b, .cpu = sl->cpu, .kind = sl->kind, .ev = sl->ev, .on_cpu = sl->on_cpu,
	};
	int ret = saakm_rec_push(rec, &r);

	if (ret || sl->kind != SAAKM_REC_CALL)
		return ret;
	if (sl->st_delta) {
		struct saakm_rec st = {
			.seq = sl->seq + sl->st_delta, .ts_ns = sl->ts_ns, .c = sl->st_old,
			.pid = sl->st_pid, .a = sl->st_new, .b = sl->st_rq, .cpu = sl->st_cpu,
			.kind = SAAKM_REC_STATE, .on_cpu = sl->on_cpu,
		};

		if ((ret = saakm_rec_push(rec, &st)))
			return ret;
	}
	if (!sl->ret_delta)
		return 0;
	r.seq += sl->ret_delta;
	r.kind = SAAKM_REC_RET;
	r.a = sl->ret;
	r.b = 0;
	r.c = 0;
	return saakm_rec_push(rec, &r);
}

int saakm_rec_read_buf(FILE *f, struct saakm_recording *rec, struct saakm_rec_buf_info *info,
		       char *err, size_t errlen)
{
	struct saakm_rec_slot sl;
	uint64_t n = 0;
	int ret;

	if (fread(info, sizeof(*info), 1, f) != 1)
		return ferror(f) ? -EIO : fail(err, errlen, "too short for its header");
	if (memcmp(info->magic, SAAKM_REC_BUF_MAGIC, sizeof(info->magic)))
		return fail(err, errlen, "not the kernel's recording arrays (magic)");
	if (info->rec_size != sizeof(sl))
		return fail(err, errlen, "records of %u bytes, not %zu (another kernel version?)",
			    info->rec_size, sizeof(sl));
	/* the kernel says how many: read them all, then make sure that was all */
	for (; n < info->nr_records && fread(&sl, sizeof(sl), 1, f) == 1; n++)
		if ((ret = push_slot(rec, &sl)))
			return ret;
	if (ferror(f))
		return -EIO;
	if (n < info->nr_records)
		return fail(err, errlen, "truncated: %llu of %llu slots",
			    (unsigned long long)n, (unsigned long long)info->nr_records);
	if (fgetc(f) != EOF)
		return fail(err, errlen, "more than the %llu slots announced",
			    (unsigned long long)info->nr_records);
	return 0;
}

int saakm_rec_fill_times(struct saakm_recording *rec)
{
	uint64_t *last = calloc(UINT16_MAX + 1, sizeof(*last));	/* by on_cpu */

	if (!last)
		return -ENOMEM;
	for (size_t i = 0; i < rec->nr; i++) {
		struct saakm_rec *r = &rec->recs[i];

		if (r->ts_ns < last[r->on_cpu])
			r->ts_ns = last[r->on_cpu];
		last[r->on_cpu] = r->ts_ns;
	}
	free(last);
	return 0;
}
