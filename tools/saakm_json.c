// SPDX-License-Identifier: GPL-2.0
/*
 * saakm trace-json: a recording (saakm record) as Chrome trace JSON, the
 * format ui.perfetto.dev and chrome://tracing open:
 *   - process "CPUs": one track per CPU with the runs of tasks on it (a run
 *     starts when a task becomes RUNNING there and ends when it leaves
 *     RUNNING) and an instant event for each callback called on that CPU;
 *   - process "tasks": one track per task with its runs and waits (READY
 *     or READY_TICK until it runs or leaves).
 * Timestamps are µs from the first record. Every string taken from the
 * recording or built from it is written by json_str(), escaped as RFC 8259
 * asks; bytes from 0x80 up are copied, so the names are taken to be UTF-8.
 *
 * And saakm dump: a recording as text, one record a line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "saakm_rec.h"
#include "saakm_cli.h"

#define PID_CPUS	1	/* JSON "pid" of the CPU tracks */
#define PID_TASKS	2	/* JSON "pid" of the task tracks */

/* What a task is doing, for spans: since when, and where. */
struct task_span {
	int pid;
	int run_cpu;		/* CPU of the open run, -1: not running */
	uint64_t run_since;
	int wait_cpu;		/* rq CPU of the open wait, -1: not waiting */
	uint64_t wait_since;
};

struct json_out {
	FILE *f;
	uint64_t t0;
	int first;
	struct task_span *tasks;
	size_t nr_tasks, alloc_tasks;
	int *index;		/* by pid: position in @tasks, -1 if none */
	int max_pid;
};

static double us(const struct json_out *o, uint64_t ts)
{
	return ts >= o->t0 ? (ts - o->t0) / 1000.0 : 0;
}

/*
 * @s as a JSON string, quotes included: " and \ escaped, control characters
 * by their short form (\n, ...) or as \u00XX, other bytes as they are.
 */
static void json_str(FILE *f, const char *s)
{
	static const char short_esc[] = { ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
					  ['\f'] = 'f', ['\r'] = 'r' };
	unsigned char c;

	fputc('"', f);
	for (; (c = *s); s++) {
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < sizeof(short_esc) && short_esc[c])
			fprintf(f, "\\%c", short_esc[c]);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void sep(struct json_out *o)
{
	fputs(o->first ? "\n" : ",\n", o->f);
	o->first = 0;
}

static void meta(struct json_out *o, int pid, int tid, const char *what, const char *name, int sort)
{
	sep(o);
	fprintf(o->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":",
		pid, tid, what);
	json_str(o->f, name);
	fputs("}}", o->f);
	sep(o);
	fprintf(o->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s_sort_index\",\"args\":{\"sort_index\":%d}}",
		pid, tid, what, sort);
}

/* A span; its args: the task's pid (@task_pid >= 0) and the state it ended in. */
static void span(struct json_out *o, int pid, int tid, const char *name, uint64_t from,
		 uint64_t to, int task_pid, const char *until)
{
	sep(o);
	fprintf(o->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"name\":", pid, tid);
	json_str(o->f, name);
	fprintf(o->f, ",\"ts\":%.3f,\"dur\":%.3f,\"args\":{", us(o, from), us(o, to) - us(o, from));
	if (task_pid >= 0)
		fprintf(o->f, "\"pid\":%d,", task_pid);
	fputs("\"until\":", o->f);
	json_str(o->f, until);
	fputs("}}", o->f);
}

/* The span state of task @pid, created (and its track named) when first seen. */
static struct task_span *task_of(struct json_out *o, int pid)
{
	char name[32];

	if (pid < 0 || pid > o->max_pid)
		return NULL;
	if (o->index[pid] >= 0)
		return &o->tasks[o->index[pid]];
	if (o->nr_tasks == o->alloc_tasks) {
		size_t n = o->alloc_tasks ? 2 * o->alloc_tasks : 64;
		struct task_span *t = realloc(o->tasks, n * sizeof(*t));

		if (!t)
			return NULL;
		o->tasks = t;
		o->alloc_tasks = n;
	}
	snprintf(name, sizeof(name), "task %d", pid);
	meta(o, PID_TASKS, pid, "thread_name", name, pid);
	o->index[pid] = o->nr_tasks;
	o->tasks[o->nr_tasks] = (struct task_span){ pid, -1, 0, -1, 0 };
	return &o->tasks[o->nr_tasks++];
}

static bool is_ready(int s)
{
	return s == SAAKM_ST_READY || s == SAAKM_ST_READY_TICK;
}

/* Close @t's open spans that state @to ends, open the ones it starts. */
static void task_moves(struct json_out *o, struct task_span *t, int to, int cpu, int rq_cpu,
		       uint64_t ts)
{
	const char *until = saakm_state_names[to];
	char name[32];

	if (t->run_cpu >= 0 && to != SAAKM_ST_RUNNING) {
		snprintf(name, sizeof(name), "pid %d", t->pid);
		span(o, PID_CPUS, t->run_cpu, name, t->run_since, ts, t->pid, until);
		snprintf(name, sizeof(name), "run on cpu %d", t->run_cpu);
		span(o, PID_TASKS, t->pid, name, t->run_since, ts, t->pid, until);
		t->run_cpu = -1;
	}
	if (t->wait_cpu != -1 && !is_ready(to)) {
		snprintf(name, sizeof(name), "wait on cpu %d", t->wait_cpu);
		span(o, PID_TASKS, t->pid, name, t->wait_since, ts, -1, until);
		t->wait_cpu = -1;
	}
	if (to == SAAKM_ST_RUNNING && t->run_cpu < 0 && cpu >= 0) {
		t->run_cpu = cpu;
		t->run_since = ts;
	}
	if (is_ready(to) && t->wait_cpu == -1) {
		t->wait_cpu = rq_cpu >= 0 ? rq_cpu : cpu;
		t->wait_since = ts;
	}
}

static void call_event(struct json_out *o, const struct saakm_rec *r)
{
	sep(o);
	fprintf(o->f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%u,\"name\":", PID_CPUS,
		r->on_cpu);
	json_str(o->f, saakm_event_names[r->ev]);
	fprintf(o->f, ",\"ts\":%.3f,\"args\":{\"cpu\":%d,\"pid\":%d,\"seq\":%llu}}",
		us(o, r->ts_ns), r->cpu, r->pid, (unsigned long long)r->seq);
}

static int write_json(const struct saakm_recording *rec, FILE *f)
{
	struct json_out o = { f, rec->nr ? rec->recs[0].ts_ns : 0, 1, NULL, 0, 0, NULL, -1 };
	uint64_t end = rec->nr ? rec->recs[rec->nr - 1].ts_ns : 0;
	char name[32];

	for (size_t i = 0; i < rec->nr; i++)
		if (rec->recs[i].pid > o.max_pid)
			o.max_pid = rec->recs[i].pid;
	o.index = malloc((o.max_pid + 1) * sizeof(*o.index));
	if (!o.index)
		return -ENOMEM;
	memset(o.index, 0xff, (o.max_pid + 1) * sizeof(*o.index));

	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"policy\":", f);
	json_str(f, rec->hdr.policy);
	fputs(",\"params\":", f);
	json_str(f, rec->hdr.params);
	fputs("},\n\"traceEvents\":[", f);
	meta(&o, PID_CPUS, 0, "process_name", "CPUs", 0);
	meta(&o, PID_TASKS, 0, "process_name", "tasks", 1);
	for (unsigned int c = 0; c < rec->hdr.nr_cpus; c++) {
		snprintf(name, sizeof(name), "CPU %u", c);
		meta(&o, PID_CPUS, c, "thread_name", name, c);
	}
	for (size_t i = 0; i < rec->nr; i++) {
		const struct saakm_rec *r = &rec->recs[i];
		struct task_span *t;

		if (r->kind == SAAKM_REC_CALL) {
			call_event(&o, r);
		} else if (r->kind == SAAKM_REC_STATE || r->kind == SAAKM_REC_FORCE) {
			t = task_of(&o, r->pid);
			if (t)
				task_moves(&o, t, r->a, r->cpu, r->kind == SAAKM_REC_STATE ? r->b : -1, r->ts_ns);
		}
	}
	/* what is still open ends with the recording */
	for (size_t i = 0; i < o.nr_tasks; i++)
		task_moves(&o, &o.tasks[i], SAAKM_ST_TERMINATED, -1, -1, end);
	fprintf(f, "\n]}\n");
	free(o.tasks);
	free(o.index);
	return ferror(f) ? -EIO : 0;
}

/* FILE.rec -> FILE.json, else FILE + .json */
static void default_out(const char *in, char *out, size_t len)
{
	size_t n = strlen(in);

	if (n > 4 && !strcmp(in + n - 4, ".rec"))
		snprintf(out, len, "%.*s.json", (int)(n - 4), in);
	else
		snprintf(out, len, "%s.json", in);
}

int cmd_trace_json(int argc, char **argv)
{
	struct saakm_recording rec;
	char err[512], out[PATH_MAX];
	const char *o = NULL;
	FILE *f;
	int c, ret;

	optind = 1;
	while ((c = getopt(argc, argv, "o:")) != -1) {
		if (c != 'o')
			return cli_usage(NULL);
		o = optarg;
	}
	if (optind != argc - 1)
		return cli_usage("trace-json needs one recording");
	if (saakm_rec_read(argv[optind], &rec, err, sizeof(err))) {
		fprintf(stderr, "saakm: %s\n", err);
		return 2;
	}
	if (!o)
		default_out(argv[optind], out, sizeof(out));
	else
		snprintf(out, sizeof(out), "%s", o);
	f = strcmp(out, "-") ? fopen(out, "we") : stdout;
	if (!f) {
		fprintf(stderr, "saakm: %s: %s\n", out, strerror(errno));
		saakm_recording_free(&rec);
		return 2;
	}
	ret = write_json(&rec, f);
	if ((f != stdout && fclose(f)) || ret) {
		fprintf(stderr, "saakm: %s: write error\n", out);
		ret = 2;
	} else if (f != stdout) {
		fprintf(stderr, "saakm: %zu records -> %s (open it in https://ui.perfetto.dev)\n",
			rec.nr, out);
	}
	saakm_recording_free(&rec);
	return ret;
}

/* saakm dump FILE: the header, then "seq ts_ns on_cpu: record" lines. */
int cmd_rec_dump(int argc, char **argv)
{
	struct saakm_recording rec;
	char err[512], line[160];

	if (argc != 2)
		return cli_usage("dump needs one recording");
	if (saakm_rec_read(argv[1], &rec, err, sizeof(err))) {
		fprintf(stderr, "saakm: %s\n", err);
		return 2;
	}
	printf("policy=%s module=%s cpus=%u records=%llu lost=%llu flags=%#x\nparams=%s\n",
	       rec.hdr.policy, rec.hdr.module, rec.hdr.nr_cpus,
	       (unsigned long long)rec.hdr.nr_records, (unsigned long long)rec.hdr.lost,
	       rec.hdr.flags, rec.hdr.params);
	for (size_t i = 0; i < rec.nr; i++)
		printf("%llu %llu [%u] %s\n", (unsigned long long)rec.recs[i].seq,
		       (unsigned long long)rec.recs[i].ts_ns, rec.recs[i].on_cpu,
		       saakm_rec_format(&rec.recs[i], line, sizeof(line)));
	saakm_recording_free(&rec);
	return 0;
}
