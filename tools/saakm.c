// SPDX-License-Identifier: GPL-2.0
/*
 * saakm(1): list SaaKM scheduling policies and move tasks onto them, like
 * chrt(1) for SCHED_SAAKM, and show what /proc/saakm says (through libsaakm's
 * parser: scripts and shell tests read /proc/saakm with 'saakm get').
 * Built on libsaakm (tools/lib). Record/replay and trace-json live in
 * saakm_record.c, saakm_replay.c and saakm_json.c. Run 'saakm help'.
 * Exit status: 0 on success, 1 on failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "saakm.h"
#include "saakm_cli.h"

int cli_policy_error(const char *name, int err)
{
	if (err == -ENOENT && name)
		fprintf(stderr, "saakm: no policy '%s' is loaded (see 'saakm list')\n", name);
	else
		fprintf(stderr, "saakm: %s\n", saakm_strerror(err));
	return 1;
}

static int parse_int(const char *s, long min, long max, long *val)
{
	char *end;

	errno = 0;
	*val = strtol(s, &end, 10);
	return !*s || *end || errno || *val < min || *val > max ? -1 : 0;
}

static int list_error(const struct saakm_record *rec, void *arg)
{
	const char *name = saakm_record_get(rec, "name");
	const char *kind = saakm_record_get(rec, "kind");
	const char *reason = saakm_record_get(rec, "reason");

	(void)arg;
	printf("ejected: %s (%s): %s\n", name ? name : "?", kind ? kind : "?",
	       reason ? reason : "");
	return 0;
}

static int cmd_list(void)
{
	struct saakm_policy_info pi[256];
	int i, n;

	n = saakm_list(pi, 256);
	if (n < 0)
		return cli_policy_error(NULL, n);
	printf("%-4s  %-20s  %6s  %-9s  %4s  %10s  %10s  %s\n", "ID", "NAME", "TASKS",
	       "STATE", "SLOT", "BALANCE_MS", "TIMEOUT_MS", "UNPRIVILEGED");
	for (i = 0; i < n && i < 256; i++)
		printf("%-4d  %-20s  %6d  %-9s  %4d  %10d  %10d  %s\n", pi[i].id, pi[i].name,
		       pi[i].tasks, pi[i].state, pi[i].slot, pi[i].balance_ms, pi[i].timeout_ms,
		       pi[i].unprivileged > 0 ? "yes" : "no");
	if (!n)
		printf("(no SaaKM policy is loaded: insmod a policy module)\n");
	saakm_proc_each("errors", list_error, NULL);
	return 0;
}

struct events_arg {
	const char *name;		/* NULL: every policy */
	int found;
};

static int events_one(const struct saakm_record *rec, void *arg)
{
	struct events_arg *ea = arg;
	const char *name = saakm_record_get(rec, "name");

	if (!name || (ea->name && strcmp(name, ea->name)))
		return 0;
	if (!ea->name)
		printf("%s%s\n", ea->found ? "\n" : "", name);
	ea->found++;
	for (int i = 0; i < rec->nr; i++)
		if (strcmp(rec->key[i], "name"))
			printf("%s%-24s %s\n", ea->name ? "" : "  ", rec->key[i], rec->val[i]);
	return 0;
}

static int cmd_events(int argc, char **argv)
{
	struct events_arg ea = { argc == 2 ? argv[1] : NULL, 0 };
	int ret;

	if (argc > 2)
		return cli_usage("events takes at most one policy name");
	ret = saakm_proc_each("events", events_one, &ea);
	if (ret < 0)
		return cli_policy_error(NULL, ret);
	if (ea.name && !ea.found)
		return cli_policy_error(ea.name, -ENOENT);
	if (!ea.found)
		printf("(no SaaKM policy is loaded)\n");
	return 0;
}

static int cmd_cpus(int argc, char **argv)
{
	struct saakm_cpu_info ci[1024];
	const char *name = argc == 2 ? argv[1] : NULL;
	int i, n;

	if (argc > 2)
		return cli_usage("cpus takes at most one policy name");
	n = saakm_cpus(name, ci, 1024);
	if (n < 0)
		return cli_policy_error(NULL, n);
	if (name && !n)
		return cli_policy_error(name, -ENOENT);
	printf("%-4s  %-20s  %6s  %6s  %10s\n", "CPU", "NAME", "READY", "PARKED", "PICKS");
	for (i = 0; i < n && i < 1024; i++)
		printf("%-4d  %-20s  %6lld  %6lld  %10lld\n", ci[i].cpu, ci[i].name,
		       ci[i].ready, ci[i].parked, ci[i].picks);
	if (!n)
		printf("(no SaaKM policy is loaded)\n");
	return 0;
}

struct get_arg {
	const char *name, *key;
	int found, missing;
};

static int get_one(const struct saakm_record *rec, void *arg)
{
	struct get_arg *ga = arg;
	const char *name = saakm_record_get(rec, "name"), *val;

	if (!name || strcmp(name, ga->name))
		return 0;
	ga->found++;
	if (!ga->key) {
		for (int i = 0; i < rec->nr; i++)
			printf("%s=%s\n", rec->key[i], rec->val[i]);
		return 0;
	}
	val = saakm_record_get(rec, ga->key);
	if (val)
		printf("%s\n", val);
	else
		ga->missing++;
	return 0;
}

/* saakm get FILE NAME [KEY]: every record of NAME (cpus has one per CPU) */
static int cmd_get(int argc, char **argv)
{
	static const char *const files[] = { "policies", "events", "errors", "cpus" };
	struct get_arg ga = { argc > 2 ? argv[2] : NULL, argc > 3 ? argv[3] : NULL, 0, 0 };
	size_t i;
	int ret;

	if (argc < 3 || argc > 4)
		return cli_usage("get needs a file, a policy name and at most one key");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(argv[1], files[i]))
			break;
	if (i == sizeof(files) / sizeof(files[0]))
		return cli_usage("get: unknown file '%s' (policies, events, errors, cpus)", argv[1]);
	ret = saakm_proc_each(argv[1], get_one, &ga);
	if (ret < 0)
		return cli_policy_error(NULL, ret);
	if (!ga.found) {
		if (strcmp(argv[1], "errors"))
			return cli_policy_error(ga.name, -ENOENT);
		fprintf(stderr, "saakm: policy '%s' has no error\n", ga.name);
		return 1;
	}
	if (ga.missing) {
		fprintf(stderr, "saakm: no key '%s' in %s of '%s'\n", ga.key, argv[1], ga.name);
		return 1;
	}
	return 0;
}

static int cmd_show(int argc, char **argv)
{
	char name[SAAKM_NAME_LEN];
	int i, policy, id, prio, rof, status = 0;
	long pid;

	if (argc < 2)
		return cli_usage("show needs at least one PID");
	for (i = 1; i < argc; i++)
		if (parse_int(argv[i], 0, INT_MAX, &pid))
			return cli_usage("bad PID '%s'", argv[i]);
	for (i = 1; i < argc; i++) {
		parse_int(argv[i], 0, INT_MAX, &pid);
		policy = saakm_get_full(pid, &id, &prio, &rof);
		if (policy < 0) {
			fprintf(stderr, "saakm: %ld: %s\n", pid, saakm_strerror(policy));
			status = 1;
			continue;
		}
		printf("%ld: %s", pid, saakm_sched_name(policy));
		if (policy == SCHED_SAAKM) {
			printf(" policy %d", id);
			if (!saakm_policy_name(id, name, sizeof(name)))
				printf(" (%s)", name);
		} else if (policy == 1 || policy == 2) {	/* FIFO, RR */
			printf(" priority %d", prio);
		}
		printf("%s\n", rof ? " reset-on-fork" : "");
	}
	return status;
}

/* Read an attribute blob file; size > SAAKM_ATTR_MAX_SIZE is left to saakm_set(). */
static void *read_blob(const char *path, size_t *size)
{
	struct stat st;
	void *buf;
	FILE *f;

	f = fopen(path, "re");
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "saakm: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	buf = malloc(st.st_size + 1);
	*size = buf ? fread(buf, 1, st.st_size, f) : 0;
	if (!buf || ferror(f)) {
		fprintf(stderr, "saakm: %s: read error\n", path);
		exit(1);
	}
	fclose(f);
	return buf;
}

/* What 'saakm run/set' asks for each task: the policy, its blob, the nice. */
struct switch_req {
	int id;
	long nice;			/* LONG_MIN: keep the task's */
	const void *blob;
	size_t size;
	unsigned int flags;
};

static int switch_task(long pid, const struct switch_req *rq)
{
	return rq->nice == LONG_MIN ?
	       saakm_set(pid, rq->id, rq->blob, rq->size, rq->flags) :
	       saakm_set_nice(pid, rq->id, rq->nice, rq->blob, rq->size, rq->flags);
}

/* Move task @pid (0: the caller); report a failure. Return: 0 or 1. */
static int switch_one(long pid, const struct switch_req *rq)
{
	int err = switch_task(pid, rq);

	if (!err)
		return 0;
	if (!pid)
		fprintf(stderr, "saakm: %s\n", saakm_strerror(err));
	else
		fprintf(stderr, "saakm: %ld: %s\n", pid, saakm_strerror(err));
	return 1;
}

/*
 * saakm set -a: every thread of process @pid, as chrt -a does. A thread
 * that exits meanwhile is not an error; one created meanwhile is missed
 * (as with chrt) unless a thread already moved forked it.
 */
static int switch_threads(long pid, const struct switch_req *rq)
{
	int err, status = 0, seen = 0;
	char path[64];
	struct dirent *d;
	long tid;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		if (parse_int(d->d_name, 1, INT_MAX, &tid))
			continue;
		err = switch_task(tid, rq);
		if (err == -ESRCH)
			continue;	/* exited since readdir() */
		seen++;
		if (err) {
			fprintf(stderr, "saakm: %ld (thread of %ld): %s\n", tid, pid,
				saakm_strerror(err));
			status = 1;
		}
	}
	if (dir)
		closedir(dir);
	if (!seen) {
		fprintf(stderr, "saakm: %ld: %s\n", pid, saakm_strerror(-ESRCH));
		return 1;
	}
	return status;
}

/* saakm run / saakm set */
static int cmd_switch(int argc, char **argv, int run)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "reset-on-fork", no_argument, NULL, 'r' },
		{ "nice", required_argument, NULL, 'n' },
		{ "attr", required_argument, NULL, 'A' },
		{ "all-tasks", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct switch_req rq = { .nice = LONG_MIN };
	const char *policy = NULL, *attr = NULL;
	int c, i, err, all = 0, status = 0;
	void *blob = NULL;
	long pid;

	optind = 1;
	while ((c = getopt_long(argc, argv, run ? "+p:rn:A:h" : "+p:rn:A:ah", opts, NULL)) != -1) {
		switch (c) {
		case 'p': policy = optarg; break;
		case 'r': rq.flags |= SAAKM_RESET_ON_FORK; break;
		case 'A': attr = optarg; break;
		case 'a': all = 1; break;
		case 'n':
			if (parse_int(optarg, -20, 19, &rq.nice))
				return cli_usage("bad nice value '%s' (-20..19)", optarg);
			break;
		case 'h': return cli_help();
		default: return cli_usage(NULL);
		}
	}
	if (!policy)
		return cli_usage("%s needs a policy: -p NAME|ID", argv[0]);
	if (optind >= argc)
		return cli_usage(run ? "run needs a command" : "set needs at least one PID");
	for (i = optind; !run && i < argc; i++)
		if (parse_int(argv[i], 0, INT_MAX, &pid))
			return cli_usage("bad PID '%s'", argv[i]);

	rq.id = saakm_policy_id(policy);
	if (rq.id < 0)
		return cli_policy_error(policy, rq.id);
	if (attr)
		rq.blob = blob = read_blob(attr, &rq.size);

	if (run)
		status = switch_one(0, &rq);
	for (i = optind; !run && i < argc; i++) {
		parse_int(argv[i], 0, INT_MAX, &pid);
		status |= all ? switch_threads(pid, &rq) : switch_one(pid, &rq);
	}
	free(blob);
	if (!run || status)
		return status;
	execvp(argv[optind], argv + optind);
	err = errno;
	fprintf(stderr, "saakm: %s: %s\n", argv[optind], strerror(err));
	return err == ENOENT ? 127 : 126;
}

/*
 * The verbs, written once: main() dispatches on this table, and the usage
 * line, 'saakm help', 'saakm VERB --help', the man page (saakm help --man)
 * and the shell completion (saakm help --verbs) are all printed from it.
 */
struct verb {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the verb */
	const char *synopsis;		/* after "saakm VERB"; lines split by \n */
	const char *summary;		/* one line */
	const char *help;		/* the options and details, or NULL */
};

static int cmd_list_verb(int argc, char **argv)
{
	(void)argv;
	return argc == 1 ? cmd_list() : cli_usage("list takes no arguments");
}

static int cmd_run(int argc, char **argv) { return cmd_switch(argc, argv, 1); }
static int cmd_set(int argc, char **argv) { return cmd_switch(argc, argv, 0); }
static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const char switch_help[] =
"  -p, --policy NAME|ID  the policy, by name or id (see 'saakm list')\n"
"  -r, --reset-on-fork   children of the task do not inherit the policy\n"
"  -n, --nice N          also set the nice value to N\n"
"      --attr FILE       pass FILE's contents to the policy as its attribute blob\n";

static const struct verb verbs[] = {
	{ "list", cmd_list_verb, "",
	  "the loaded policies (from /proc/saakm/policies), and the ejected ones' reasons", NULL },
	{ "run", cmd_run,
	  "-p NAME|ID [--reset-on-fork] [--nice N] [--attr FILE] [--] CMD [ARGS...]",
	  "switch to the policy, then execute CMD in it",
	  "CMD's exit status is saakm's (127: CMD not found).\n" },
	{ "set", cmd_set,
	  "-p NAME|ID [-a] [--reset-on-fork] [--nice N] [--attr FILE] PID...",
	  "move the given tasks onto the policy",
	  "  -a, --all-tasks       every thread of each PID's process (as chrt -a)\n" },
	{ "load", cmd_load, "NAME [KEY=VALUE...]",
	  "load policy NAME's module, with parameters",
	  "Looks for saakm_NAME.ko in the directories of $SAAKM_POLICY_PATH, then in\n"
	  "/lib/modules/RELEASE/extra/saakm (make install), then in the source tree\n"
	  "saakm was built from. An unknown KEY is refused before loading; a value\n"
	  "the policy refuses fails the load and its message is shown.\n" },
	{ "unload", cmd_unload, "NAME",
	  "unload policy NAME's module; its tasks go back to the fair class", NULL },
	{ "upgrade", cmd_upgrade, "[--keep-old] FILE.ko [KEY=VALUE...]",
	  "load a new version of a loaded policy, which takes it over live",
	  "The module's policy must declare that it upgrades (.upgrade in its\n"
	  "saakm_ops) and have the name of the loaded one: it then keeps its id and\n"
	  "its tasks, which never leave SaaKM. If the new version refuses the old\n"
	  "one's state, the old one goes on and the kernel's reason is shown. The\n"
	  "old version's module is then unloaded, unless --keep-old.\n" },
	{ "switch", cmd_switch_all, "FROM TO",
	  "move every task of policy FROM onto policy TO",
	  "Each task leaves FROM and joins TO in one step, never passing through\n"
	  "SCHED_NORMAL. A task that TO refuses goes back to SCHED_NORMAL and is\n"
	  "listed; the exit status is then 1. A FROM or TO that is not loaded or is\n"
	  "ejected is refused before any task moves.\n" },
	{ "param", cmd_param, "NAME [KEY[=VALUE]...]",
	  "show or set a loaded policy's parameters (/sys/module/MODULE/parameters)",
	  "With no KEY, every parameter as KEY=VALUE lines; KEY prints its value,\n"
	  "KEY=VALUE sets it. An unknown KEY is refused before anything is written.\n" },
	{ "stats", cmd_stats, "[--json | --openmetrics] [NAME]",
	  "each policy's and each CPU's figures once: counters since the policy was loaded",
	  "  --json          as JSON (its schema: docs/stats.md)\n"
	  "  --openmetrics   as OpenMetrics text (Prometheus, node-exporter's textfile collector)\n"
	  "Per policy and per CPU: tasks, runnable (waiting for a CPU), picks,\n"
	  "migrations, ejection, and the wake-to-run latency (p50, p99, histogram).\n" },
	{ "top", cmd_top, "[-d SECS] [-n N]",
	  "a live view of each policy and CPU: picks and migrations per second, wake latency",
	  "  -d SECS    refresh every SECS seconds (default 1)\n"
	  "  -n N       print N frames and exit, without clearing the screen (for scripts)\n"
	  "q quits. The wake-to-run percentiles are of the waits that ended since\n"
	  "the previous frame.\n" },
	{ "show", cmd_show, "PID...", "print each task's scheduling policy", NULL },
	{ "events", cmd_events, "[NAME]",
	  "per-policy event counters (from /proc/saakm/events)", NULL },
	{ "cpus", cmd_cpus, "[NAME]",
	  "per-CPU queue lengths and picks of each policy (/proc/saakm/cpus)", NULL },
	{ "get", cmd_get, "policies|events|errors|cpus NAME [KEY]",
	  "one field of policy NAME's record in a /proc/saakm file",
	  "With no KEY, the whole record as KEY=VALUE lines; exit status 1 if the\n"
	  "policy or the key is absent (for scripts: 'saakm get policies fifo state').\n" },
	{ "record", cmd_record,
	  "-p NAME|ID [-o FILE] [-b KB] [-m MODULE] [--no-join] [-- CMD [ARGS...]]",
	  "record the calls and decisions of a policy while CMD runs in it",
	  "Records until CMD exits, or until Ctrl-C, into FILE (default saakm.rec).\n"
	  "  -b KB        trace buffer per CPU in KB (default 32768)\n"
	  "  -m MODULE    the policy's module, for its parameters\n"
	  "  --no-join    run CMD without moving it onto the policy\n" },
	{ "replay", cmd_replay, "FILE POLICY.c [--last N] [-v]\n--build POLICY.c",
	  "check a policy's decisions, compiled for user space, against a recording",
	  "Compiles POLICY.c with tools/usim and replays FILE through it. At the\n"
	  "first divergence, prints it and the --last N (default 10) records before.\n"
	  "Exit status: 0 match, 1 divergence, 2 error, 3 recording incomplete\n"
	  "(matched up to the gap). --build only builds (or finds) the program and\n"
	  "prints its path, so that later replays of that source start at once.\n" },
	{ "trace-json", cmd_trace_json, "FILE [-o OUT.json]",
	  "a recording as Chrome trace JSON for ui.perfetto.dev (default FILE.json)", NULL },
	{ "convert", cmd_rec_convert,
	  "TRACE -p NAME [-i ID] [-o FILE] [-c CPUS] [-m MODULE] [-P PARAMS]",
	  "turn a saved trace text (tracefs trace, trace-cmd report) into a recording", NULL },
	{ "dump", cmd_rec_dump, "FILE", "a recording, one record a line", NULL },
	{ "new", cmd_new, "NAME [--dir DIR]", "create a policy skeleton from the FIFO tutorial",
	  "Writes DIR/NAME (DIR: policies): saakm_NAME.c, the FIFO tutorial policy\n"
	  "renamed NAME with a header comment for you to fill in, and its Kbuild.\n"
	  "When DIR is a source tree's policies/, the tests go where its runners look:\n"
	  "tests/policy/t_NAME.c (host unit tests: make policy-test P=NAME) and\n"
	  "tests/guest/t_saakm_NAME.sh (opt-in guest test: make test T=saakm_NAME);\n"
	  "elsewhere, next to the policy. NAME: a C identifier of at most 31\n"
	  "characters. Nothing is overwritten. The templates are read from\n"
	  "$SAAKM_TEMPLATE_DIR, else from the source tree saakm was built from.\n" },
	{ "help", cmd_help, "[VERB | --man | --verbs]",
	  "this text; VERB's own; the man page (troff); the verbs, for completion", NULL },
	{ "version", cmd_version, "", "the version of saakm (also --version)", NULL },
};

#define NR_VERBS	(sizeof(verbs) / sizeof(verbs[0]))

static const struct verb *cli_verb;	/* the verb being run */

static const struct verb *find_verb(const char *name)
{
	for (size_t i = 0; i < NR_VERBS; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

/* "saakm VERB SYNOPSIS" for each line of @v's synopsis, after @first. */
static void print_synopsis(FILE *f, const struct verb *v, const char *first)
{
	const char *s = v->synopsis, *nl;

	do {
		nl = strchr(s, '\n');
		fprintf(f, "%ssaakm %s%s%.*s\n", first, v->name, *s ? " " : "",
			nl ? (int)(nl - s) : (int)strlen(s), s);
		first = "       ";
		s = nl + 1;
	} while (nl);
}

static void print_usage(FILE *f, const struct verb *only)
{
	const char *first = "usage: ";

	for (size_t i = 0; i < NR_VERBS; i++) {
		if (only && only != &verbs[i])
			continue;
		print_synopsis(f, &verbs[i], first);
		first = "       ";
	}
}

int cli_usage(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		fputs("saakm: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	print_usage(stderr, cli_verb);
	if (cli_verb)
		fprintf(stderr, "Run 'saakm %s --help' for details.\n", cli_verb->name);
	else
		fputs("Run 'saakm help' for details.\n", stderr);
	return 2;
}

static void verb_help(const struct verb *v)
{
	print_usage(stdout, v);
	printf("\n%s.\n", v->summary);
	if (v == find_verb("run") || v == find_verb("set"))
		fputs(switch_help, stdout);
	if (v->help)
		fputs(v->help, stdout);
}

int cli_help(void)
{
	verb_help(cli_verb);
	return 0;
}

static const char common_help[] =
"Joining a policy needs CAP_SYS_NICE. SAAKM_PROC overrides /proc/saakm.\n"
"Exit status: 0 on success, 1 on failure, 2 on a usage error.\n";

/* Write @len bytes of @s for troff: leading dots, backslashes and dashes escaped. */
static void man_text_n(const char *s, size_t len)
{
	int bol = 1;

	for (; len && *s; s++, len--) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", stdout);
		if (*s == '\\')
			fputs("\\e", stdout);
		else if (*s == '-')
			fputs("\\-", stdout);
		else
			putchar(*s);
		bol = *s == '\n';
	}
}

static void man_text(const char *s)
{
	man_text_n(s, strlen(s));
}

/* saakm.1, from the same table as the usage text. */
static void print_man(void)
{
	printf(".TH SAAKM 1 \"\" \"saakm %s\" \"User Commands\"\n", SAAKM_VERSION);
	printf(".SH NAME\nsaakm \\- run tasks on SaaKM scheduling policies, "
	       "inspect, record and replay them\n.SH SYNOPSIS\n.nf\n");
	for (size_t i = 0; i < NR_VERBS; i++) {
		const char *s = verbs[i].synopsis, *nl;

		do {
			nl = strchr(s, '\n');
			fputs("\\fBsaakm ", stdout);
			man_text(verbs[i].name);
			fputs("\\fR ", stdout);
			man_text_n(s, nl ? (size_t)(nl - s) : strlen(s));
			putchar('\n');
			s = nl + 1;
		} while (nl);
	}
	printf(".fi\n.SH DESCRIPTION\nSaaKM is a Linux scheduling class whose policies are "
	       "kernel modules.\n.B saakm\nmoves tasks onto them, like\n.BR chrt (1)\n"
	       "for SCHED_SAAKM, and shows what /proc/saakm says.\n.SH COMMANDS\n");
	for (size_t i = 0; i < NR_VERBS; i++) {
		int sw = !strcmp(verbs[i].name, "run") || !strcmp(verbs[i].name, "set");

		printf(".TP\n.B ");
		man_text(verbs[i].name);
		putchar('\n');
		man_text(verbs[i].summary);
		printf(".\n");
		if (verbs[i].help || sw) {
			printf(".nf\n");
			if (sw)
				man_text(switch_help);
			if (verbs[i].help)
				man_text(verbs[i].help);
			printf(".fi\n");
		}
	}
	printf(".SH NOTES\n.nf\n");
	man_text(common_help);
	printf(".fi\n.SH SEE ALSO\n.BR chrt (1),\n.BR sched_setattr (2)\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct verb *v;

	if (argc > 2)
		return cli_usage("help takes at most one verb");
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return cli_help();
	if (argc == 2 && !strcmp(argv[1], "--man")) {
		print_man();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--verbs")) {
		for (size_t i = 0; i < NR_VERBS; i++)
			printf("%s\n", verbs[i].name);
		return 0;
	}
	if (argc == 2) {
		v = find_verb(argv[1]);
		if (!v)
			return cli_usage("help: unknown verb '%s'", argv[1]);
		verb_help(v);
		return 0;
	}
	print_usage(stdout, NULL);
	putchar('\n');
	for (size_t i = 0; i < NR_VERBS; i++)
		printf("  %-10s  %s\n", verbs[i].name, verbs[i].summary);
	printf("\nRun 'saakm VERB --help' for a verb's options.\n%s", common_help);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cli_usage("version takes no arguments");
	printf("saakm %s\n", SAAKM_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return cli_usage("missing command");
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		cmd = "help";
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version"))
		cmd = "version";
	cli_verb = find_verb(cmd);
	if (!cli_verb)
		return cli_usage("unknown command '%s'", cmd);
	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) &&
	    cli_verb->run != cmd_help)
		return cli_help();
	return cli_verb->run(argc - 1, argv + 1);
}
