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
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "saakm.h"
#include "saakm_cli.h"

static const char usage_text[] =
"usage: saakm list\n"
"       saakm run -p NAME|ID [--reset-on-fork] [--nice N] [--attr FILE] [--] CMD [ARGS...]\n"
"       saakm set -p NAME|ID [--reset-on-fork] [--nice N] [--attr FILE] PID...\n"
"       saakm show PID...\n"
"       saakm events [NAME]\n"
"       saakm cpus [NAME]\n"
"       saakm get policies|events|errors|cpus NAME [KEY]\n"
"       saakm record -p NAME|ID [-o FILE] [-b KB] [-m MODULE] [--no-join] [-- CMD [ARGS...]]\n"
"       saakm replay FILE POLICY.c [--last N] [-v]\n"
"       saakm replay --build POLICY.c\n"
"       saakm trace-json FILE [-o OUT.json]\n"
"       saakm convert TRACE -p NAME [-i ID] [-o FILE] [-c CPUS] [-m MODULE] [-P PARAMS]\n"
"       saakm dump FILE\n"
"       saakm help\n";

static const char help_text[] =
"\n"
"  list    the loaded policies (from /proc/saakm/policies)\n"
"  run     switch to the policy, then execute CMD in it\n"
"  set     move the given tasks onto the policy\n"
"  show    print each task's scheduling policy\n"
"  events  per-policy event counters (from /proc/saakm/events)\n"
"  cpus    per-CPU queue lengths and picks of each policy (/proc/saakm/cpus)\n"
"  get     one field of policy NAME's record in a /proc/saakm file, or with\n"
"          no KEY its whole record as KEY=VALUE lines; exit 1 if absent\n"
"          (for scripts: 'saakm get policies fifo state')\n"
"  record  record the calls and decisions of a policy while CMD runs in it\n"
"          (or until Ctrl-C) into FILE (default saakm.rec); -b: trace buffer\n"
"          per CPU in KB (default 32768); -m: the policy's module, for its\n"
"          parameters; --no-join: run CMD without moving it onto the policy\n"
"  replay  compile POLICY.c for user space (tools/usim) and check its decisions\n"
"          against FILE; at the first divergence print it and the --last N\n"
"          (default 10) records before; exit 0 match, 1 divergence,\n"
"          2 error, 3 recording incomplete (matched up to the gap);\n"
"          --build: only build (or find) the program and print its path,\n"
"          so that later replays of that source start at once\n"
"  trace-json  FILE as Chrome trace JSON for ui.perfetto.dev (default FILE.json)\n"
"  convert a saved trace text (tracefs trace, trace-cmd report) into a recording\n"
"  dump    a recording, one record a line\n"
"\n"
"  -p, --policy NAME|ID  the policy, by name or id (see 'saakm list')\n"
"  -r, --reset-on-fork   children of the task do not inherit the policy\n"
"  -n, --nice N          also set the nice value to N\n"
"  -a, --attr FILE       pass FILE's contents to the policy as its attribute blob\n"
"Joining a policy needs CAP_SYS_NICE. SAAKM_PROC overrides /proc/saakm.\n";

static int usage(const char *fmt, const char *arg)
{
	if (fmt) {
		fprintf(stderr, "saakm: ");
		fprintf(stderr, fmt, arg);
		fprintf(stderr, "\n");
	}
	fputs(usage_text, stderr);
	fputs("Run 'saakm help' for details.\n", stderr);
	return 2;
}

static int help(void)
{
	fputs(usage_text, stdout);
	fputs(help_text, stdout);
	return 0;
}

/* Report a policy lookup failure; return the exit status. */
static int policy_error(const char *name, int err)
{
	if (err == -ENOENT)
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
		return policy_error(NULL, n);
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
		return usage("events takes at most one policy name", NULL);
	ret = saakm_proc_each("events", events_one, &ea);
	if (ret < 0)
		return policy_error(NULL, ret);
	if (ea.name && !ea.found)
		return policy_error(ea.name, -ENOENT);
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
		return usage("cpus takes at most one policy name", NULL);
	n = saakm_cpus(name, ci, 1024);
	if (n < 0)
		return policy_error(NULL, n);
	if (name && !n)
		return policy_error(name, -ENOENT);
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
		return usage("get needs a file, a policy name and at most one key", NULL);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(argv[1], files[i]))
			break;
	if (i == sizeof(files) / sizeof(files[0]))
		return usage("get: unknown file '%s' (policies, events, errors, cpus)", argv[1]);
	ret = saakm_proc_each(argv[1], get_one, &ga);
	if (ret < 0)
		return policy_error(NULL, ret);
	if (!ga.found) {
		if (strcmp(argv[1], "errors"))
			return policy_error(ga.name, -ENOENT);
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
		return usage("show needs at least one PID", NULL);
	for (i = 1; i < argc; i++)
		if (parse_int(argv[i], 0, INT_MAX, &pid))
			return usage("bad PID '%s'", argv[i]);
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

/* saakm run / saakm set */
static int cmd_switch(int argc, char **argv, int run)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "reset-on-fork", no_argument, NULL, 'r' },
		{ "nice", required_argument, NULL, 'n' },
		{ "attr", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy = NULL, *attr = NULL;
	unsigned flags = 0;
	long nice = LONG_MIN, pid;
	int c, i, id, err, status = 0;
	size_t size = 0;
	void *blob = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:rn:a:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': policy = optarg; break;
		case 'r': flags |= SAAKM_RESET_ON_FORK; break;
		case 'a': attr = optarg; break;
		case 'n':
			if (parse_int(optarg, -20, 19, &nice))
				return usage("bad nice value '%s' (-20..19)", optarg);
			break;
		case 'h': return help();
		default: return usage(NULL, NULL);
		}
	}
	if (!policy)
		return usage("%s needs a policy: -p NAME|ID", argv[0]);
	if (optind >= argc)
		return usage(run ? "run needs a command" : "set needs at least one PID", NULL);
	for (i = optind; !run && i < argc; i++)
		if (parse_int(argv[i], 0, INT_MAX, &pid))
			return usage("bad PID '%s'", argv[i]);

	id = saakm_policy_id(policy);
	if (id < 0)
		return policy_error(policy, id);
	if (attr)
		blob = read_blob(attr, &size);

	for (i = run ? argc - 1 : optind; i < argc; i++) {
		pid = 0;
		if (!run)
			parse_int(argv[i], 0, INT_MAX, &pid);
		err = nice == LONG_MIN ? saakm_set(pid, id, blob, size, flags) :
			saakm_set_nice(pid, id, nice, blob, size, flags);
		if (err) {
			if (run)
				fprintf(stderr, "saakm: %s\n", saakm_strerror(err));
			else
				fprintf(stderr, "saakm: %ld: %s\n", pid, saakm_strerror(err));
			status = 1;
		}
	}
	free(blob);
	if (!run || status)
		return status;
	execvp(argv[optind], argv + optind);
	err = errno;
	fprintf(stderr, "saakm: %s: %s\n", argv[optind], strerror(err));
	return err == ENOENT ? 127 : 126;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return usage("missing command", NULL);
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		return help();
	if (!strcmp(cmd, "list"))
		return argc == 2 ? cmd_list() : usage("list takes no arguments", NULL);
	if (!strcmp(cmd, "run"))
		return cmd_switch(argc - 1, argv + 1, 1);
	if (!strcmp(cmd, "set"))
		return cmd_switch(argc - 1, argv + 1, 0);
	if (!strcmp(cmd, "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(cmd, "events"))
		return cmd_events(argc - 1, argv + 1);
	if (!strcmp(cmd, "cpus"))
		return cmd_cpus(argc - 1, argv + 1);
	if (!strcmp(cmd, "get"))
		return cmd_get(argc - 1, argv + 1);
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "trace-json"))
		return cmd_trace_json(argc - 1, argv + 1);
	if (!strcmp(cmd, "convert"))
		return cmd_rec_convert(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_rec_dump(argc - 1, argv + 1);
	return usage("unknown command '%s'", cmd);
}
