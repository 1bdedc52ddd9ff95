// SPDX-License-Identifier: GPL-2.0
/*
 * saakm stats and saakm top: what each policy and each CPU is doing, from
 * one snapshot of /proc/saakm (policies, events, errors, cpus).
 *
 * 'stats' prints a snapshot's counters once: as a table, as JSON (its
 * schema is in docs/stats.md) or as OpenMetrics text for Prometheus.
 * 'top' takes a snapshot every refresh and shows the rates between the
 * last two: picks and migrations per second, and the wake-to-run latency
 * percentiles of the waits that ended in between.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "saakm.h"
#include "saakm_cli.h"

#define MAX_POLICIES	64
#define MAX_LINES	4096		/* (CPU, policy) lines of /proc/saakm/cpus */

/* A policy's figures, or one CPU's figures for a policy (cpu >= 0). */
struct figures {
	int cpu;			/* -1: the policy's totals */
	long long runnable;		/* ready + parked: waiting for a CPU */
	long long picks, migrations;
	long long wake_count, wake_sum_ns;
	long long wake_hist[SAAKM_WAKE_HIST_BUCKETS];
};

struct policy_snap {
	struct saakm_policy_info info;
	struct saakm_error err;
	int ejected;			/* has a line in /proc/saakm/errors */
	struct figures total;
	int nr_cpus;
	struct figures *cpus;		/* in /proc/saakm/cpus order */
};

struct snapshot {
	double time;			/* CLOCK_MONOTONIC, seconds */
	int nr;
	struct policy_snap pol[MAX_POLICIES];
	struct saakm_cpu_info lines[MAX_LINES];
	struct figures cpu_figs[MAX_LINES];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_figures(struct figures *to, const struct figures *f)
{
	to->runnable += f->runnable;
	to->picks += f->picks;
	to->migrations += f->migrations;
	to->wake_count += f->wake_count;
	to->wake_sum_ns += f->wake_sum_ns;
	for (int i = 0; i < SAAKM_WAKE_HIST_BUCKETS; i++)
		to->wake_hist[i] += f->wake_hist[i];
}

static void line_figures(struct figures *f, const struct saakm_cpu_info *ci)
{
	memset(f, 0, sizeof(*f));
	f->cpu = ci->cpu;
	f->runnable = ci->ready + ci->parked;
	f->picks = ci->picks;
	f->migrations = ci->migrations > 0 ? ci->migrations : 0;
	f->wake_count = ci->wake_count > 0 ? ci->wake_count : 0;
	f->wake_sum_ns = ci->wake_sum_ns > 0 ? ci->wake_sum_ns : 0;
	memcpy(f->wake_hist, ci->wake_hist, sizeof(f->wake_hist));
}

/*
 * Take a snapshot of /proc/saakm. Its cpus file lists every policy for CPU
 * 0, then every policy for CPU 1...: the snapshot keeps each policy's CPUs
 * together. Return: 0, or -errno (-ENOSYS: no SaaKM).
 */
static int take_snapshot(struct snapshot *s)
{
	struct saakm_policy_info pi[MAX_POLICIES];
	int i, j, n, lines, k = 0;

	n = saakm_list(pi, MAX_POLICIES);
	if (n < 0)
		return n;
	lines = saakm_cpus(NULL, s->lines, MAX_LINES);
	if (lines < 0)
		return lines;
	s->time = now();
	s->nr = n < MAX_POLICIES ? n : MAX_POLICIES;
	lines = lines < MAX_LINES ? lines : MAX_LINES;
	for (i = 0; i < s->nr; i++) {
		struct policy_snap *ps = &s->pol[i];

		memset(ps, 0, sizeof(*ps));
		ps->info = pi[i];
		ps->total.cpu = -1;
		ps->ejected = !saakm_error_get(ps->info.name, &ps->err);
		ps->cpus = &s->cpu_figs[k];
		for (j = 0; j < lines; j++) {
			if (strcmp(s->lines[j].name, ps->info.name))
				continue;
			line_figures(&s->cpu_figs[k++], &s->lines[j]);
			add_figures(&ps->total, &ps->cpus[ps->nr_cpus++]);
		}
	}
	return 0;
}

/* -------- once: saakm stats -------- */

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_number(double v)
{
	if (v < 0 || !isfinite(v))
		printf("null");
	else
		printf("%.3f", v);
}

static void json_figures(const struct figures *f, const char *indent)
{
	printf("%s\"runnable\": %lld, \"picks\": %lld, \"migrations\": %lld,\n",
	       indent, f->runnable, f->picks, f->migrations);
	printf("%s\"wake_latency\": {\"count\": %lld, \"sum_ns\": %lld, \"p50_us\": ", indent,
	       f->wake_count, f->wake_sum_ns);
	json_number(saakm_hist_quantile(f->wake_hist, 0.5));
	printf(", \"p99_us\": ");
	json_number(saakm_hist_quantile(f->wake_hist, 0.99));
	printf(", \"buckets\": [");
	for (int i = 0; i < SAAKM_WAKE_HIST_BUCKETS; i++)
		printf("%s%lld", i ? ", " : "", f->wake_hist[i]);
	printf("]}");
}

static void print_json(const struct snapshot *s)
{
	printf("{\n  \"schema\": 1,\n  \"wake_hist_bounds_us\": [");
	for (int i = 0; i < SAAKM_WAKE_HIST_BUCKETS - 1; i++)
		printf("%s%.0f", i ? ", " : "", saakm_hist_bound_us(i));
	printf("],\n  \"policies\": [");
	for (int i = 0; i < s->nr; i++) {
		const struct policy_snap *ps = &s->pol[i];

		printf("%s\n    {\"id\": %d, \"name\": ", i ? "," : "", ps->info.id);
		json_string(ps->info.name);
		printf(", \"module\": ");
		json_string(*ps->info.module ? ps->info.module : "-");
		printf(", \"state\": ");
		json_string(ps->info.state);
		printf(", \"tasks\": %d,\n", ps->info.tasks);
		printf("     \"ejection\": ");
		if (ps->ejected) {
			printf("{\"kind\": ");
			json_string(ps->err.kind);
			printf(", \"reason\": ");
			json_string(ps->err.reason);
			printf("}");
		} else {
			printf("null");
		}
		printf(",\n");
		json_figures(&ps->total, "     ");
		printf(",\n     \"cpus\": [");
		for (int c = 0; c < ps->nr_cpus; c++) {
			printf("%s\n       {\"cpu\": %d,\n", c ? "," : "", ps->cpus[c].cpu);
			json_figures(&ps->cpus[c], "        ");
			printf("}");
		}
		printf("%s]}", ps->nr_cpus ? "\n     " : "");
	}
	printf("%s]\n}\n", s->nr ? "\n  " : "");
}

/* One OpenMetrics metric family: its TYPE and HELP lines. */
static void om_family(const char *name, const char *type, const char *help)
{
	printf("# TYPE %s %s\n# HELP %s %s\n", name, type, name, help);
}

/* One sample of @name per policy and CPU: the figure at @off in its figures. */
static void om_per_cpu(const struct snapshot *s, const char *name, size_t off)
{
	for (int i = 0; i < s->nr; i++)
		for (int c = 0; c < s->pol[i].nr_cpus; c++)
			printf("%s{policy=\"%s\",cpu=\"%d\"} %lld\n", name, s->pol[i].info.name,
			       s->pol[i].cpus[c].cpu,
			       *(const long long *)((const char *)&s->pol[i].cpus[c] + off));
}

static void om_hist(const struct policy_snap *ps, const struct figures *f)
{
	long long cum = 0;

	for (int i = 0; i < SAAKM_WAKE_HIST_BUCKETS; i++) {
		cum += f->wake_hist[i];
		printf("saakm_wake_latency_seconds_bucket{policy=\"%s\",cpu=\"%d\",le=\"",
		       ps->info.name, f->cpu);
		if (i < SAAKM_WAKE_HIST_BUCKETS - 1)
			printf("%g", saakm_hist_bound_us(i) / 1e6);
		else
			printf("+Inf");
		printf("\"} %lld\n", cum);
	}
	printf("saakm_wake_latency_seconds_count{policy=\"%s\",cpu=\"%d\"} %lld\n",
	       ps->info.name, f->cpu, f->wake_count);
	printf("saakm_wake_latency_seconds_sum{policy=\"%s\",cpu=\"%d\"} %.9f\n",
	       ps->info.name, f->cpu, f->wake_sum_ns / 1e9);
}

/*
 * OpenMetrics text: counters since each policy was loaded, gauges as of
 * now, one histogram per policy and CPU. Policy names are C identifiers:
 * no label value needs escaping.
 */
static void print_openmetrics(const struct snapshot *s)
{
	int i, c;

	om_family("saakm_policy_tasks", "gauge", "Tasks attached to the policy.");
	for (i = 0; i < s->nr; i++)
		printf("saakm_policy_tasks{policy=\"%s\"} %d\n", s->pol[i].info.name,
		       s->pol[i].info.tasks);
	om_family("saakm_policy_ejected", "gauge",
		  "1 if the policy was ejected after an error, else 0.");
	for (i = 0; i < s->nr; i++)
		printf("saakm_policy_ejected{policy=\"%s\"} %d\n", s->pol[i].info.name,
		       s->pol[i].ejected);
	om_family("saakm_cpu_runnable", "gauge",
		  "Tasks of the policy waiting for the CPU (queued or parked).");
	om_per_cpu(s, "saakm_cpu_runnable", offsetof(struct figures, runnable));
	om_family("saakm_cpu_picks", "counter", "Tasks the policy picked on the CPU.");
	om_per_cpu(s, "saakm_cpu_picks_total", offsetof(struct figures, picks));
	om_family("saakm_cpu_migrations", "counter", "Tasks of the policy moved to the CPU.");
	om_per_cpu(s, "saakm_cpu_migrations_total", offsetof(struct figures, migrations));
	om_family("saakm_wake_latency_seconds", "histogram",
		  "Time from a task's wakeup to its running, on the CPU it ran on.");
	for (i = 0; i < s->nr; i++)
		for (c = 0; c < s->pol[i].nr_cpus; c++)
			om_hist(&s->pol[i], &s->pol[i].cpus[c]);
	printf("# EOF\n");
}

static void print_us(double us)
{
	if (us < 0)
		printf(" %8s", "-");
	else if (us < 10000)
		printf(" %6.0fus", us);
	else
		printf(" %6.0fms", us / 1000);
}

/* The table of 'stats': counters since load. */
static void print_table(const struct snapshot *s)
{
	printf("%-16s %4s %-9s %6s %8s %12s %10s %9s %9s\n", "POLICY", "ID", "STATE", "TASKS",
	       "RUNNABLE", "PICKS", "MIGRATED", "WAKE_P50", "WAKE_P99");
	for (int i = 0; i < s->nr; i++) {
		const struct policy_snap *ps = &s->pol[i];

		printf("%-16s %4d %-9s %6d %8lld %12lld %10lld", ps->info.name, ps->info.id,
		       ps->info.state, ps->info.tasks, ps->total.runnable, ps->total.picks,
		       ps->total.migrations);
		print_us(saakm_hist_quantile(ps->total.wake_hist, 0.5));
		print_us(saakm_hist_quantile(ps->total.wake_hist, 0.99));
		putchar('\n');
		if (ps->ejected)
			printf("  ejected (%s): %s\n", ps->err.kind, ps->err.reason);
	}
	if (!s->nr)
		printf("(no SaaKM policy is loaded)\n");
}

/* Keep only policy @name in @s. Return: 0, or -ENOENT. */
static int only_policy(struct snapshot *s, const char *name)
{
	for (int i = 0; i < s->nr; i++) {
		if (strcmp(s->pol[i].info.name, name))
			continue;
		if (i)
			s->pol[0] = s->pol[i];
		s->nr = 1;
		return 0;
	}
	return -ENOENT;
}

/* saakm stats [--json | --openmetrics] [NAME] */
int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "openmetrics", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = NULL;
	struct snapshot *s;
	int c, fmt = 0, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c == '?' || (fmt && fmt != c))
			return cli_usage(c == '?' ? NULL : "--json and --openmetrics exclude each other");
		fmt = c;
	}
	if (argc - optind > 1)
		return cli_usage("stats takes at most one policy name");
	name = optind < argc ? argv[optind] : NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return cli_policy_error(NULL, -ENOMEM);
	ret = take_snapshot(s);
	if (!ret && name)
		ret = only_policy(s, name);
	if (ret) {
		free(s);
		return cli_policy_error(name, ret);
	}
	if (fmt == 'j')
		print_json(s);
	else if (fmt == 'o')
		print_openmetrics(s);
	else
		print_table(s);
	free(s);
	return 0;
}

/* -------- live: saakm top -------- */

/* The figures of @now minus those of @before (counters only). */
static void delta(struct figures *d, const struct figures *now, const struct figures *before)
{
	*d = *now;
	if (!before)
		return;
	d->picks -= before->picks;
	d->migrations -= before->migrations;
	d->wake_count -= before->wake_count;
	d->wake_sum_ns -= before->wake_sum_ns;
	for (int i = 0; i < SAAKM_WAKE_HIST_BUCKETS; i++)
		d->wake_hist[i] -= before->wake_hist[i];
}

static const struct policy_snap *find_policy(const struct snapshot *s, int id)
{
	for (int i = 0; s && i < s->nr; i++)
		if (s->pol[i].info.id == id)
			return &s->pol[i];
	return NULL;
}

static const struct figures *find_cpu(const struct policy_snap *ps, int cpu)
{
	for (int i = 0; ps && i < ps->nr_cpus; i++)
		if (ps->cpus[i].cpu == cpu)
			return &ps->cpus[i];
	return NULL;
}

static void top_row(const char *label, const struct figures *now, const struct figures *before,
		    double secs)
{
	struct figures d;

	delta(&d, now, before);
	printf("%s %8lld %10.1f %9.1f", label, d.runnable, d.picks / secs, d.migrations / secs);
	print_us(saakm_hist_quantile(d.wake_hist, 0.5));
	print_us(saakm_hist_quantile(d.wake_hist, 0.99));
	putchar('\n');
}

#define TOP_MIN_COLS	72
#define TOP_MIN_ROWS	8

/* One frame: the rates between @before (NULL: since load) and @now. */
static void top_frame(const struct snapshot *now, const struct snapshot *before, double every,
		      int rows)
{
	double secs = before ? now->time - before->time : every;
	int used = 3;

	printf("saakm top: %d %s, rates over %.1f s; q quits\n", now->nr,
	       now->nr == 1 ? "policy" : "policies", secs);
	if (!now->nr) {
		printf("(no SaaKM policy is loaded: 'saakm load NAME' loads one)\n");
		return;
	}
	printf("%-16s %4s %-9s %6s %8s %10s %9s %9s %9s\n", "POLICY / CPU", "ID", "STATE",
	       "TASKS", "RUNNABLE", "PICKS/s", "MIGR/s", "WAKE_P50", "WAKE_P99");
	for (int i = 0; i < now->nr; i++) {
		const struct policy_snap *ps = &now->pol[i], *pb = find_policy(before, ps->info.id);
		char label[64];

		snprintf(label, sizeof(label), "%-16s %4d %-9s %6d", ps->info.name, ps->info.id,
			 ps->ejected ? "ejected" : ps->info.state, ps->info.tasks);
		top_row(label, &ps->total, pb ? &pb->total : NULL, secs);
		used++;
		for (int c = 0; c < ps->nr_cpus; c++) {
			if (rows && used >= rows - 1) {
				printf("  (%d more lines: a taller terminal shows them)\n",
				       ps->nr_cpus - c);
				return;
			}
			snprintf(label, sizeof(label), "  cpu %-10d %4s %-9s %6s", ps->cpus[c].cpu,
				 "", "", "");
			top_row(label, &ps->cpus[c], find_cpu(pb, ps->cpus[c].cpu), secs);
			used++;
		}
		if (ps->ejected && (!rows || used < rows - 1)) {
			printf("  ejected (%s): %.*s\n", ps->err.kind, TOP_MIN_COLS - 16,
			       ps->err.reason);
			used++;
		}
	}
}

static struct termios saved_tty;
static int tty_raw;

static void tty_restore(void)
{
	if (tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	tty_raw = 0;
}

static void on_signal(int sig)
{
	tty_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Keys without Enter, no echo; restored at exit and on a fatal signal. */
static void tty_keys(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty))
		return;
	t = saved_tty;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
		return;
	tty_raw = 1;
	atexit(tty_restore);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

/* Wait up to @secs for a key; return 1 if it was q (or the input ended). */
static int wait_quit(double secs)
{
	double end = now() + secs;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char ch;

	for (double left = secs; left > 0; left = end - now()) {
		if (!tty_raw) {
			usleep(left * 1e6);
			return 0;
		}
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (read(STDIN_FILENO, &ch, 1) != 1)
			return 1;
		if (ch == 'q' || ch == 'Q')
			return 1;
	}
	return 0;
}

/* saakm top [-d SECS] [-n N] */
int cmd_top(int argc, char **argv)
{
	struct snapshot *s[2];
	int c, frames = 0, live, ret = 0, cur = 0;
	double every = 1;
	char *end;

	optind = 1;
	while ((c = getopt(argc, argv, "+d:n:")) != -1) {
		switch (c) {
		case 'd':
			every = strtod(optarg, &end);
			if (*end || !(every >= 0.1 && every <= 3600))
				return cli_usage("bad refresh '%s' (seconds, 0.1 to 3600)", optarg);
			break;
		case 'n':
			frames = strtol(optarg, &end, 10);
			if (*end || frames < 1)
				return cli_usage("bad frame count '%s'", optarg);
			break;
		default:
			return cli_usage(NULL);
		}
	}
	if (optind != argc)
		return cli_usage("top takes no arguments besides its options");
	live = isatty(STDOUT_FILENO) && !frames;
	s[0] = calloc(1, sizeof(*s[0]));
	s[1] = calloc(1, sizeof(*s[1]));
	if (!s[0] || !s[1])
		return cli_policy_error(NULL, -ENOMEM);
	ret = take_snapshot(s[0]);
	if (ret)
		goto out;
	if (live)
		tty_keys();
	for (int n = 0; !frames || n < frames; n++) {
		struct winsize ws = { 0 };

		if (wait_quit(every))
			break;
		ret = take_snapshot(s[!cur]);
		if (ret)
			break;
		cur = !cur;
		if (live) {
			printf("\033[H\033[2J");
			if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < TOP_MIN_COLS ||
			    ws.ws_row < TOP_MIN_ROWS) {
				printf("saakm top: the terminal is %ux%u; it needs at least %dx%d\n",
				       ws.ws_col, ws.ws_row, TOP_MIN_COLS, TOP_MIN_ROWS);
				fflush(stdout);
				continue;
			}
		} else if (n) {
			putchar('\n');
		}
		top_frame(s[cur], s[!cur], every, live ? ws.ws_row : 0);
		fflush(stdout);
	}
out:
	tty_restore();
	free(s[0]);
	free(s[1]);
	return ret ? cli_policy_error(NULL, ret) : 0;
}
