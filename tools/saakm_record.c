// SPDX-License-Identifier: GPL-2.0
/*
 * saakm record: record what a SaaKM policy is asked and what it decides,
 * into a recording file (tools/lib/saakm_rec.h) for "saakm replay".
 *
 * The kernel emits one saakm:saakm_record trace event per record while
 * /sys/kernel/saakm/record holds the policy's id. We give them a tracefs
 * instance of their own (instances/saakm-record: other tracing users are
 * not disturbed) with the mono clock (so that CPUs agree), a buffer that
 * drops new events when full instead of overwriting old ones (replay needs
 * the start of a run; what was dropped is counted), run the command, stop,
 * and convert the instance's "trace" text into the binary file, sorted by
 * seq. Lost records are detected twice: gaps in seq, and the per-CPU ring
 * buffer statistics. The instance and the knob are cleaned up however we
 * end, SIGINT included.
 *
 * Also "saakm convert TRACE": the same conversion from a saved trace text
 * (a copy of a tracefs "trace" file, or trace-cmd report output).
 *
 * Environment, for tests without a SaaKM kernel: SAAKM_TRACEFS (tracefs
 * root; files are then created as needed), SAAKM_SYS (instead of /sys),
 * SAAKM_PROC (instead of /proc/saakm).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "saakm_rec.h"
#include "saakm_cli.h"

#define INSTANCE	"saakm-record"
#define DEFAULT_KB	32768

/*
 * What cleanup() must undo, with paths computed beforehand: it also runs
 * from a signal handler, so it uses only async-signal-safe calls.
 */
static struct {
	char inst[1024];		/* tracefs/instances/saakm-record */
	char knob[PATH_MAX];		/* /sys/kernel/saakm/record */
	char tracing_on[PATH_MAX], enable[PATH_MAX];
	volatile sig_atomic_t knob_set, inst_made, fake;
	volatile sig_atomic_t stop;	/* signals received */
	volatile sig_atomic_t converting;
} R;

static const char record_usage[] =
"usage: saakm record -p NAME|ID [-o FILE] [-b KB] [-m MODULE] [--no-join] [-- CMD [ARGS...]]\n"
"       saakm convert TRACE -p NAME [-i ID] [-o FILE] [-c CPUS] [-m MODULE] [-P PARAMS]\n";

static int rec_usage(const char *msg, const char *arg)
{
	if (msg) {
		fprintf(stderr, "saakm: ");
		fprintf(stderr, msg, arg);
		fprintf(stderr, "\n");
	}
	fputs(record_usage, stderr);
	fputs("Run 'saakm help' for details.\n", stderr);
	return 2;
}

/* Write @s to @path (async-signal-safe). Return: 0 or -errno. */
static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | (R.fake ? O_CREAT : 0), 0644);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* Write @s to @file of the instance. */
static int putf(const char *file, const char *s)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", R.inst, file);
	return put(path, s);
}

/* Undo what start_recording() did; safe to call twice and from a handler. */
static void cleanup(void)
{
	if (R.knob_set)
		put(R.knob, "0");
	R.knob_set = 0;
	if (!R.inst_made)
		return;
	put(R.tracing_on, "0");
	put(R.enable, "0");
	if (rmdir(R.inst) && !R.fake) {
		static const char msg[] = "saakm: could not remove the tracefs instance " INSTANCE "\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			return;
	}
	R.inst_made = 0;
}

static void on_signal(int sig)
{
	/* A second signal while we convert: give up, but leave nothing behind. */
	if (R.converting || R.stop) {
		cleanup();
		signal(sig, SIG_DFL);
		raise(sig);
	}
	R.stop++;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The tracefs mount: $SAAKM_TRACEFS, /sys/kernel/tracing or the debugfs one. */
static const char *tracefs_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *env = getenv("SAAKM_TRACEFS");
	char path[PATH_MAX];

	if (env && *env) {
		R.fake = 1;
		return env;
	}
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (!access(path, F_OK))
			return roots[i];
	}
	return NULL;
}

static const char *sys_root(void)
{
	const char *env = getenv("SAAKM_SYS");

	return env && *env ? env : "/sys";
}

/* Possible CPUs: the highest number in .../cpu/possible, plus one. */
static unsigned int possible_cpus(void)
{
	char path[PATH_MAX], buf[256], *p;
	unsigned long max = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible", sys_root());
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		long n = sysconf(_SC_NPROCESSORS_CONF);
		return n > 0 ? n : 1;
	}
	fclose(f);
	/* "0-3,8-11": the last number is the highest */
	for (p = buf; *p; p++)
		if (*p >= '0' && *p <= '9' && (p == buf || p[-1] < '0' || p[-1] > '9'))
			max = strtoul(p, NULL, 10);
	return max + 1;
}

/* The module of policy @name: module= in /proc/saakm/policies, or saakm_NAME if loaded. */
static void find_module(const char *name, char *mod, size_t len)
{
	struct saakm_record rec;
	char path[PATH_MAX];
	const char *m;

	if (!saakm_proc_find("policies", name, &rec) && (m = saakm_record_get(&rec, "module"))) {
		snprintf(mod, len, "%s", m);
		return;
	}
	snprintf(path, sizeof(path), "%s/module/saakm_%s", sys_root(), name);
	if (!access(path, F_OK))
		snprintf(mod, len, "saakm_%s", name);
}

/* "name=value ..." from /sys/module/@mod/parameters (sorted by name). */
static void read_params(const char *mod, char *out, size_t len)
{
	struct dirent **names;
	char path[PATH_MAX], val[256];
	size_t used = 0;
	int n;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/module/%s/parameters", sys_root(), mod);
	n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		FILE *f;

		if (names[i]->d_name[0] == '.')
			goto next;
		snprintf(path, sizeof(path), "%s/module/%s/parameters/%s", sys_root(), mod,
			 names[i]->d_name);
		f = fopen(path, "re");
		if (f && fgets(val, sizeof(val), f)) {
			val[strcspn(val, "\n")] = '\0';
			used += snprintf(out + used, used < len ? len - used : 0, "%s%s=%s",
					 used ? " " : "", names[i]->d_name, val);
		}
		if (f)
			fclose(f);
next:
		free(names[i]);
	}
	if (n > 0)
		free(names);
	if (used >= len)
		fprintf(stderr, "saakm: warning: parameters of %s truncated to %zu bytes\n", mod, len - 1);
}

/* A fake tracefs (tests): the directories a real instance comes with. */
static void fake_instance_dirs(void)
{
	static const char *const dirs[] = { "events", "events/saakm", "events/saakm/saakm_record",
					     "options", "per_cpu" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", R.inst, dirs[i]);
		mkdir(path, 0755);
	}
}

/* Set up the instance and start recording policy @id. Return: 0 or -errno. */
static int start_recording(const char *root, int id, long kb)
{
	char buf[32];
	int err;

	if (strlen(root) > sizeof(R.inst) - 64) {
		fprintf(stderr, "saakm: tracefs path too long: %s\n", root);
		return -ENAMETOOLONG;
	}
	snprintf(R.inst, sizeof(R.inst), "%s/instances/" INSTANCE, root);
	snprintf(R.tracing_on, sizeof(R.tracing_on), "%s/tracing_on", R.inst);
	snprintf(R.enable, sizeof(R.enable), "%s/events/saakm/saakm_record/enable", R.inst);
	snprintf(R.knob, sizeof(R.knob), "%s/kernel/saakm/record", sys_root());
	if (mkdir(R.inst, 0755)) {
		err = -errno;
		if (err == -EEXIST)
			fprintf(stderr, "saakm: %s exists: another 'saakm record' is running, or one was killed (then rmdir it)\n", R.inst);
		else
			fprintf(stderr, "saakm: cannot create %s: %s\n", R.inst, strerror(-err));
		return err;
	}
	R.inst_made = 1;
	if (R.fake)
		fake_instance_dirs();
	snprintf(buf, sizeof(buf), "%ld", kb);
	if ((err = putf("tracing_on", "0")) || (err = putf("trace_clock", "mono")) ||
	    (err = putf("buffer_size_kb", buf)) || (err = putf("options/overwrite", "0")) ||
	    (err = putf("trace", ""))) {
		fprintf(stderr, "saakm: setting up %s: %s\n", R.inst, strerror(-err));
		return err;
	}
	if ((err = put(R.enable, "1"))) {
		fprintf(stderr, "saakm: %s: %s (a kernel without the SaaKM recorder?)\n", R.enable, strerror(-err));
		return err;
	}
	if ((err = put(R.tracing_on, "1")))
		return err;
	snprintf(buf, sizeof(buf), "%d", id);
	if ((err = put(R.knob, buf))) {
		fprintf(stderr, "saakm: %s: %s (a kernel without the SaaKM recorder?)\n", R.knob, strerror(-err));
		return err;
	}
	R.knob_set = 1;
	return 0;
}

/* Stop recording (knob first: the last records are still written). */
static void stop_recording(void)
{
	if (R.knob_set)
		put(R.knob, "0");
	R.knob_set = 0;
	put(R.tracing_on, "0");
}

/* Events in the instance's buffers now, and lost so far (all CPUs). */
static void buffer_stats(uint64_t *entries, uint64_t *lost)
{
	char path[PATH_MAX], line[128];
	struct dirent *d;
	DIR *dir;

	*entries = *lost = 0;
	snprintf(path, sizeof(path), "%s/per_cpu", R.inst);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		uint64_t l;
		FILE *f;

		if (strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/stats", R.inst, d->d_name);
		if (!saakm_rec_cpu_lost(path, &l))
			*lost += l;
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "entries:", 8))
				*entries += strtoull(line + 8, NULL, 10);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run @argv (NULL: none) under policy @id (unless !@join); wait for it or a signal. */
static int run_command(char **argv, int id, int join, double t0)
{
	int tty = isatty(2), status = 0;
	double next = t0 + 1;
	pid_t pid = -1;

	if (argv) {
		pid = fork();
		if (pid < 0)
			return -errno;
		if (!pid) {
			int err = join ? saakm_set(0, id, NULL, 0, 0) : 0;

			if (err) {
				fprintf(stderr, "saakm: joining the policy: %s\n", saakm_strerror(err));
				_exit(126);
			}
			signal(SIGINT, SIG_DFL);
			execvp(argv[0], argv);
			fprintf(stderr, "saakm: %s: %s\n", argv[0], strerror(errno));
			_exit(errno == ENOENT ? 127 : 126);
		}
	}
	for (;;) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };

		if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (pid < 0 && R.stop)
			break;
		nanosleep(&tick, NULL);
		if (tty && now_s() >= next) {
			uint64_t entries, lost;

			buffer_stats(&entries, &lost);
			fprintf(stderr, "\rsaakm record: %.0f s, %llu records in the buffers, %llu lost ",
				now_s() - t0, (unsigned long long)entries, (unsigned long long)lost);
			next += 1;
		}
	}
	if (tty)
		fprintf(stderr, "\n");
	if (pid < 0)
		return 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* What a conversion found, for the summary. */
struct convert_result {
	struct saakm_recording rec;
	struct saakm_trace_stats st;
	uint64_t gaps, first_gap, ring_lost;
};

/*
 * The records of policy @id in trace text @path into @cr, sorted, with
 * their losses counted. Return: 0, or -errno after printing why.
 */
static int convert_trace(const char *path, int id, struct convert_result *cr)
{
	uint64_t dup;
	FILE *f = fopen(path, "re");
	int err;

	if (!f) {
		err = -errno;
		fprintf(stderr, "saakm: %s: %s\n", path, strerror(-err));
		return err;
	}
	err = saakm_rec_parse_trace(f, id, &cr->rec, &cr->st);
	fclose(f);
	if (err) {
		fprintf(stderr, "saakm: reading %s: %s\n", path, strerror(-err));
		return err;
	}
	if (saakm_rec_sort(&cr->rec, &dup)) {
		fprintf(stderr, "saakm: %s: seq %llu appears twice (two recordings of the policy mixed?)\n",
			path, (unsigned long long)dup);
		return -EINVAL;
	}
	cr->gaps = saakm_rec_gaps(cr->rec.recs, cr->rec.nr, &cr->first_gap);
	if (cr->st.bad)
		fprintf(stderr, "saakm: warning: %s: %llu saakm_record lines not understood (first: line %llu)\n",
			path, cr->st.bad, cr->st.first_bad_line);
	return 0;
}

/* Fill the header's loss fields and write the file; print the summary. */
static int finish(struct convert_result *cr, struct saakm_rec_header *h, const char *out,
		  uint64_t ring_lost)
{
	uint64_t lost = cr->gaps > ring_lost ? cr->gaps : ring_lost;
	size_t nr = cr->rec.nr, n_kind[SAAKM_NR_REC_KINDS] = { 0 };
	char err[512];
	double span;

	ring_lost += cr->st.lost_lines > ring_lost ? cr->st.lost_lines - ring_lost : 0;
	lost = cr->gaps > ring_lost ? cr->gaps : ring_lost;
	h->lost = lost;
	h->flags = lost ? SAAKM_REC_INCOMPLETE : 0;
	for (size_t i = 0; i < nr; i++)
		if (cr->rec.recs[i].kind < SAAKM_NR_REC_KINDS)
			n_kind[cr->rec.recs[i].kind]++;
	if (saakm_rec_write(out, h, cr->rec.recs, nr, err, sizeof(err))) {
		fprintf(stderr, "saakm: %s\n", err);
		return 1;
	}
	span = nr ? (cr->rec.recs[nr - 1].ts_ns - cr->rec.recs[0].ts_ns) / 1e9 : 0;
	printf("saakm: %zu records (%zu calls), %llu lost, %.3f s of %s on %u CPUs -> %s\n", nr,
	       n_kind[SAAKM_REC_CALL], (unsigned long long)lost, span, h->policy, h->nr_cpus, out);
	if (lost)
		fprintf(stderr, "saakm: warning: records were lost (%llu missing seq numbers, first %llu; %llu dropped by the ring buffers): the recording is incomplete, replay stops at the first gap; a larger buffer (-b KB) helps\n",
			(unsigned long long)cr->gaps, (unsigned long long)cr->first_gap,
			(unsigned long long)ring_lost);
	if (cr->st.other_policy)
		fprintf(stderr, "saakm: note: %llu records of other policies skipped\n",
			cr->st.other_policy);
	if (!nr)
		fprintf(stderr, "saakm: warning: nothing was recorded (no task of %s ran?)\n", h->policy);
	return 0;
}

struct record_opts {
	const char *policy, *out, *module;
	long kb;
	int join;
};

static int parse_record_opts(int argc, char **argv, struct record_opts *o)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "module", required_argument, NULL, 'm' },
		{ "no-join", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct record_opts){ NULL, "saakm.rec", NULL, DEFAULT_KB, 1 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:o:b:m:", opts, NULL)) != -1) {
		switch (c) {
		case 'p': o->policy = optarg; break;
		case 'o': o->out = optarg; break;
		case 'm': o->module = optarg; break;
		case 'n': o->join = 0; break;
		case 'b':
			o->kb = strtol(optarg, &end, 10);
			if (*end || o->kb < 1 || o->kb > 16L * 1024 * 1024)
				return rec_usage("bad buffer size '%s' (KB per CPU)", optarg);
			break;
		default: return rec_usage(NULL, NULL);
		}
	}
	if (!o->policy)
		return rec_usage("record needs a policy: -p NAME|ID", NULL);
	return -1;
}

/* Record, then convert; the caller cleans up. Return: the exit status. */
static int record(const struct record_opts *o, char **cmd)
{
	struct convert_result cr = { 0 };
	struct saakm_rec_header h;
	char name[SAAKM_NAME_LEN], mod[56] = "", params[512], trace[PATH_MAX];
	const char *root = tracefs_root();
	uint64_t entries, ring_lost;
	int id, status, err;
	double t0;

	if (!root) {
		fprintf(stderr, "saakm: no tracefs (mount -t tracefs nodev /sys/kernel/tracing)\n");
		return 1;
	}
	id = saakm_policy_id(o->policy);
	if (id < 0 || saakm_policy_name(id, name, sizeof(name))) {
		fprintf(stderr, "saakm: %s: %s\n", o->policy,
			id == -ENOENT ? "no such policy is loaded" : saakm_strerror(id));
		return 1;
	}
	if (o->module)
		snprintf(mod, sizeof(mod), "%s", o->module);
	else
		find_module(name, mod, sizeof(mod));
	if (!mod[0])
		fprintf(stderr, "saakm: warning: module of '%s' unknown (give -m MODULE): no parameters recorded\n", name);
	read_params(mod, params, sizeof(params));
	saakm_rec_header_init(&h, name, mod, params, possible_cpus());

	catch_signals();
	if (start_recording(root, id, o->kb))
		return 1;
	fprintf(stderr, "saakm record: recording %s (id %d) with %ld KB of buffer per CPU%s\n", name, id,
		o->kb, cmd ? "" : "; Ctrl-C stops");
	t0 = now_s();
	status = run_command(cmd, id, o->join, t0);
	stop_recording();
	R.converting = 1;
	if (status < 0) {
		fprintf(stderr, "saakm: cannot run %s: %s\n", cmd[0], strerror(-status));
		return 1;
	}
	buffer_stats(&entries, &ring_lost);
	snprintf(trace, sizeof(trace), "%s/trace", R.inst);
	err = convert_trace(trace, id, &cr);
	/* only our event is on in the instance: every entry should have been read */
	if (!err && entries > cr.rec.nr + cr.st.other_policy + cr.st.bad) {
		uint64_t unread = entries - (cr.rec.nr + cr.st.other_policy + cr.st.bad);

		fprintf(stderr, "saakm: warning: the buffers held %llu events, %llu were not read back\n",
			(unsigned long long)entries, (unsigned long long)unread);
		ring_lost += unread;
	}
	if (!err)
		err = finish(&cr, &h, o->out, ring_lost);
	saakm_recording_free(&cr.rec);
	if (err)
		return 1;
	if (status)
		fprintf(stderr, "saakm: %s exited with status %d\n", cmd[0], status);
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int ret = parse_record_opts(argc, argv, &o);

	if (ret >= 0)
		return ret;
	ret = record(&o, optind < argc ? argv + optind : NULL);
	cleanup();
	return ret;
}

/* saakm convert TRACE -p NAME [-i ID] [-o FILE] [-c CPUS] [-m MODULE] [-P PARAMS] */
int cmd_rec_convert(int argc, char **argv)
{
	const char *policy = NULL, *out = "saakm.rec", *mod = NULL, *params = NULL;
	struct convert_result cr = { 0 };
	struct saakm_rec_header h;
	long id = 0, cpus = 0;
	char *end;
	int c, err;

	optind = 1;
	while ((c = getopt(argc, argv, "p:i:o:c:m:P:")) != -1) {
		switch (c) {
		case 'p': policy = optarg; break;
		case 'o': out = optarg; break;
		case 'm': mod = optarg; break;
		case 'P': params = optarg; break;
		case 'i':
		case 'c':
			*(c == 'i' ? &id : &cpus) = strtol(optarg, &end, 10);
			if (*end || strtol(optarg, NULL, 10) < 0)
				return rec_usage("bad number '%s'", optarg);
			break;
		default: return rec_usage(NULL, NULL);
		}
	}
	if (optind != argc - 1 || !policy)
		return rec_usage("convert needs one trace file and -p NAME", NULL);
	err = convert_trace(argv[optind], id, &cr);
	/* CPUs: as given, else enough for every CPU the records name */
	for (size_t i = 0; !cpus && i < cr.rec.nr; i++)
		if (cr.rec.recs[i].on_cpu >= cpus)
			cpus = cr.rec.recs[i].on_cpu + 1;
	for (size_t i = 0; i < cr.rec.nr; i++)
		if (cr.rec.recs[i].cpu >= cpus)
			cpus = cr.rec.recs[i].cpu + 1;
	saakm_rec_header_init(&h, policy, mod, params, cpus ? cpus : 1);
	if (!err)
		err = finish(&cr, &h, out, 0);
	saakm_recording_free(&cr.rec);
	return err ? 1 : 0;
}
