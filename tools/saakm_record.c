// SPDX-License-Identifier: GPL-2.0
/*
 * saakm record: record what a SaaKM policy is asked and what it decides,
 * into a recording file (tools/lib/saakm_rec.h) for "saakm replay".
 *
 * While /sys/kernel/saakm/record holds the policy's id, the kernel writes
 * the records into arrays of its own, one per CPU, which count what they
 * drop when full. We size them (KiB per CPU, written to
 * /proc/saakm/record_buf), turn the knob on, run the command, turn the
 * knob off, read the arrays back from /proc/saakm/record_buf and write
 * them, sorted by seq, into the file. Lost records are detected twice:
 * gaps in seq, and the count of records the arrays dropped. The knob is
 * turned off and the arrays freed however we end, SIGINT included.
 *
 * Also "saakm convert TRACE": a recording from a saved trace text of the
 * saakm:saakm_record trace event, which kernels of the first recorder
 * emitted (a copy of a tracefs "trace" file, or trace-cmd report output).
 *
 * Environment, for tests without a SaaKM kernel: SAAKM_SYS (instead of
 * /sys), SAAKM_PROC (instead of /proc/saakm), SAAKM_RECORD_BUF (instead of
 * /proc/saakm/record_buf; it is then created as needed).
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

#define DEFAULT_KB	SAAKM_REC_BUF_KB

/*
 * What cleanup() must undo, with paths computed beforehand: it also runs
 * from a signal handler, so it uses only async-signal-safe calls.
 */
static struct {
	char knob[PATH_MAX];		/* /sys/kernel/saakm/record */
	char buf[PATH_MAX];		/* /proc/saakm/record_buf */
	volatile sig_atomic_t knob_set, buf_set, fake;
	volatile sig_atomic_t stop;	/* signals received */
	volatile sig_atomic_t converting;
} R;

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

/* Undo what start_recording() did; safe to call twice and from a handler. */
static void cleanup(void)
{
	if (R.knob_set)
		put(R.knob, "0");
	R.knob_set = 0;
	/* the arrays are freed (a recording's worth of memory) */
	if (R.buf_set)
		put(R.buf, "0");
	R.buf_set = 0;
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

/* The path of /proc/saakm/record_buf: $SAAKM_RECORD_BUF, else in $SAAKM_PROC or /proc/saakm. */
static void buf_path(void)
{
	const char *env = getenv("SAAKM_RECORD_BUF"), *proc = getenv("SAAKM_PROC");

	R.fake = env && *env;
	if (R.fake)
		snprintf(R.buf, sizeof(R.buf), "%s", env);
	else
		snprintf(R.buf, sizeof(R.buf), "%s/record_buf", proc && *proc ? proc : "/proc/saakm");
}

/* Size the arrays and start recording policy @id. Return: 0 or -errno. */
static int start_recording(int id, long kb)
{
	char num[32];
	int err;

	snprintf(R.knob, sizeof(R.knob), "%s/kernel/saakm/record", sys_root());
	buf_path();
	snprintf(num, sizeof(num), "%ld", kb);
	if ((err = put(R.buf, num))) {
		if (err == -EBUSY)
			fprintf(stderr, "saakm: %s: a policy is being recorded: another 'saakm record' is running, or one was killed (then echo 0 > %s)\n",
				R.buf, R.knob);
		else
			fprintf(stderr, "saakm: %s: %s (a kernel without the SaaKM recorder?)\n", R.buf,
				strerror(-err));
		return err;
	}
	R.buf_set = 1;
	snprintf(num, sizeof(num), "%d", id);
	if ((err = put(R.knob, num))) {
		fprintf(stderr, "saakm: %s: %s%s\n", R.knob, strerror(-err),
			err == -ENOMEM ? " (no memory for the buffers: a smaller -b?)" :
			" (a kernel without the SaaKM recorder?)");
		return err;
	}
	R.knob_set = 1;
	return 0;
}

/* Stop recording: once the knob is 0, the arrays hold every record. */
static void stop_recording(void)
{
	if (R.knob_set)
		put(R.knob, "0");
	R.knob_set = 0;
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
			fprintf(stderr, "\rsaakm record: %.0f s ", now_s() - t0);
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
	uint64_t gaps, first_gap;
	uint64_t slots;		/* the kernel's slots they came in, 0 from a trace */
};

/* Sort @cr's records read from @what, count its gaps. Return: 0 or -EINVAL. */
static int sort_records(const char *what, struct convert_result *cr)
{
	uint64_t dup;

	if (saakm_rec_sort(&cr->rec, &dup)) {
		fprintf(stderr, "saakm: %s: seq %llu appears twice (two recordings of the policy mixed?)\n",
			what, (unsigned long long)dup);
		return -EINVAL;
	}
	cr->gaps = saakm_rec_gaps(cr->rec.recs, cr->rec.nr, &cr->first_gap);
	return 0;
}

/*
 * The records of policy @id in trace text @path into @cr, sorted, with
 * their losses counted. Return: 0, or -errno after printing why.
 */
static int convert_trace(const char *path, int id, struct convert_result *cr)
{
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
	err = sort_records(path, cr);
	if (!err && cr->st.bad)
		fprintf(stderr, "saakm: warning: %s: %llu saakm_record lines not understood (first: line %llu)\n",
			path, cr->st.bad, cr->st.first_bad_line);
	return err;
}

/* Fill the header's loss fields and write the file; print the summary. */
static int finish(struct convert_result *cr, struct saakm_rec_header *h, const char *out,
		  uint64_t dropped)
{
	uint64_t lost;
	size_t nr = cr->rec.nr, n_kind[SAAKM_NR_REC_KINDS] = { 0 };
	char err[512];
	double span;

	dropped += cr->st.lost_lines > dropped ? cr->st.lost_lines - dropped : 0;
	/* a dropped record leaves a gap, unless it came after the last one kept */
	lost = cr->gaps > dropped ? cr->gaps : dropped;
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
	printf("saakm: %zu records (%zu calls", nr, n_kind[SAAKM_REC_CALL]);
	if (cr->slots)
		printf(", %llu slots", (unsigned long long)cr->slots);
	printf("), %llu lost, %.3f s of %s on %u CPUs -> %s\n", (unsigned long long)lost, span,
	       h->policy, h->nr_cpus, out);
	if (lost)
		fprintf(stderr, "saakm: warning: records were lost (%llu missing seq numbers, first %llu; %llu dropped by full buffers): the recording is incomplete, replay stops at the first gap; a larger buffer (-b KB) helps\n",
			(unsigned long long)cr->gaps, (unsigned long long)cr->first_gap,
			(unsigned long long)dropped);
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
				return cli_usage("bad buffer size '%s' (KB per CPU)", optarg);
			break;
		default: return cli_usage(NULL);
		}
	}
	if (!o->policy)
		return cli_usage("record needs a policy: -p NAME|ID");
	return -1;
}

/*
 * The records of policy @id from the kernel's arrays into @cr, sorted, with
 * their losses counted (*@dropped: by the arrays). Return: 0, or -errno
 * after printing why.
 */
static int read_buffers(int id, struct convert_result *cr, uint64_t *dropped)
{
	struct saakm_rec_buf_info info;
	FILE *f = fopen(R.buf, "re");
	char err[256] = "";
	int ret;

	if (!f) {
		ret = -errno;
		fprintf(stderr, "saakm: %s: %s\n", R.buf, strerror(-ret));
		return ret;
	}
	ret = saakm_rec_read_buf(f, &cr->rec, &info, err, sizeof(err));
	fclose(f);
	if (ret) {
		fprintf(stderr, "saakm: reading %s: %s\n", R.buf, err[0] ? err : strerror(-ret));
		return ret;
	}
	if ((int)info.policy_id != id) {
		fprintf(stderr, "saakm: %s holds a recording of policy %u, not %d (another 'saakm record' ran meanwhile?)\n",
			R.buf, info.policy_id, id);
		return -EINVAL;
	}
	*dropped = info.dropped;
	cr->slots = info.nr_records;
	ret = sort_records(R.buf, cr);
	return ret ? ret : saakm_rec_fill_times(&cr->rec);
}

/* The live upgrades of policy @name so far, -1 if unknown. */
static int generation_of(const char *name)
{
	struct saakm_policy_info pi;

	return saakm_policy_get(name, &pi) ? -1 : pi.generation;
}

/*
 * Say so if the kernel stopped recording policy @id before we did: it does
 * at a live upgrade (the recording ends where the policy's code changed),
 * an unload or an ejection.
 */
static void note_early_stop(const char *name, int id, int gen0)
{
	char buf[32] = "";
	FILE *f = fopen(R.knob, "re");
	int gen;

	if (!f)
		return;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (atoi(buf) == id)
		return;
	gen = generation_of(name);
	if (gen >= 0 && gen0 >= 0 && gen != gen0)
		fprintf(stderr, "saakm record: policy %s was upgraded live (generation %d): the recording stops at the upgrade, and replays against the old version's source\n",
			name, gen);
	else
		fprintf(stderr, "saakm record: the kernel stopped recording %s before the command ended (unloaded or ejected): the recording stops there\n",
			name);
}

/* Record, then write the file; the caller cleans up. Return: the exit status. */
static int record(const struct record_opts *o, char **cmd)
{
	struct convert_result cr = { 0 };
	struct saakm_rec_header h;
	char name[SAAKM_NAME_LEN], mod[56] = "", params[512];
	uint64_t dropped = 0;
	int id, status, err, gen0;

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
	if (start_recording(id, o->kb))
		return 1;
	fprintf(stderr, "saakm record: recording %s (id %d) with %ld KB of buffer per CPU%s\n", name, id,
		o->kb, cmd ? "" : "; Ctrl-C stops");
	gen0 = generation_of(name);
	status = run_command(cmd, id, o->join, now_s());
	if (!R.fake)
		note_early_stop(name, id, gen0);
	stop_recording();
	R.converting = 1;
	if (status < 0) {
		fprintf(stderr, "saakm: cannot run %s: %s\n", cmd[0], strerror(-status));
		return 1;
	}
	err = read_buffers(id, &cr, &dropped);
	if (!err)
		err = finish(&cr, &h, o->out, dropped);
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
				return cli_usage("bad number '%s'", optarg);
			break;
		default: return cli_usage(NULL);
		}
	}
	if (optind != argc - 1 || !policy)
		return cli_usage("convert needs one trace file and -p NAME");
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
