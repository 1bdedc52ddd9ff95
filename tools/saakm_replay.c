// SPDX-License-Identifier: GPL-2.0
/*
 * saakm replay FILE POLICY.c [--last N] [-v]: build POLICY.c for user space
 * and run the replay engine on FILE. saakm replay --build POLICY.c only
 * builds the program into the cache and prints its path.
 *
 * The program is POLICY.c (compiled by tools/usim/policy-cc against the
 * shim headers of tools/usim/include, with POLICY.c's directory on the
 * include path) + tools/replay/engine.c + libusim.a + libsaakm.a. It is
 * cached under $XDG_CACHE_HOME/saakm/replay (else ~/.cache/saakm/replay,
 * else the build directory), named after a hash of everything it is built
 * from, so a second replay of the same source starts at once and an edit
 * rebuilds. The engine does the replay and sets the exit status (see
 * engine.c); a build failure exits 2.
 *
 * Where things are: the build directory is the one this saakm binary is in
 * (build/tools: libsaakm.a, usim/libusim.a, usim/usim.cflags), the sources
 * are SAAKM_SRC_DIR (set at build time) or $SAAKM_SRC.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "saakm_cli.h"

#ifndef SAAKM_SRC_DIR
#define SAAKM_SRC_DIR "."
#endif

struct build {
	char src[PATH_MAX];	/* repository */
	char out[PATH_MAX];	/* build directory (of this binary) */
	char policy[PATH_MAX];	/* POLICY.c, absolute */
	char bin[PATH_MAX];	/* the cached program */
	const char *cc;
	uint64_t hash;
};

/*
 * @a followed by @b into @dst (@len bytes), truncated if too long: then
 * the path does not exist and the step that uses it says so.
 */
static char *pathcat3(char *dst, size_t len, const char *a, const char *b, const char *c)
{
	size_t na = strnlen(a, len - 1), nb = strnlen(b, len - 1 - na);
	size_t nc = strnlen(c, len - 1 - na - nb);

	memmove(dst, a, na);
	memmove(dst + na, b, nb);
	memmove(dst + na + nb, c, nc);
	dst[na + nb + nc] = '\0';
	return dst;
}

static char *pathcat(char *dst, size_t len, const char *a, const char *b)
{
	return pathcat3(dst, len, a, b, "");
}

/* FNV-1a over @len bytes, continuing from @h. */
static uint64_t fnv(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Hash @path's name and contents into *@h. Return: 0 or -errno. */
static int hash_file(uint64_t *h, const char *path)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	*h = fnv(*h, path, strlen(path) + 1);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		*h = fnv(*h, buf, n);
	fclose(f);
	return 0;
}

static int is_source(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	/* kbuild writes NAME.mod.c next to a module's sources: not a source */
	if (n > 6 && !strcmp(d->d_name + n - 6, ".mod.c"))
		return 0;
	return n > 2 && d->d_name[0] != '.' &&
	       (!strcmp(d->d_name + n - 2, ".c") || !strcmp(d->d_name + n - 2, ".h"));
}

/* Hash the sources of a directory (sorted), e.g. the policy's headers. */
static void hash_dir(uint64_t *h, const char *dir)
{
	struct dirent **names;
	char path[PATH_MAX];
	int n = scandir(dir, &names, is_source, alphasort);

	for (int i = 0; i < n; i++) {
		pathcat3(path, sizeof(path), dir, "/", names[i]->d_name);
		hash_file(h, path);
		free(names[i]);
	}
	if (n > 0)
		free(names);
}

/* Find the sources and build outputs; check they are there. Return: 0 or 2. */
static int locate(struct build *b, const char *policy)
{
	const char *env = getenv("SAAKM_SRC");
	char exe[PATH_MAX], path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || !realpath(policy, b->policy)) {
		fprintf(stderr, "saakm replay: %s: %s\n", policy, strerror(errno));
		return 2;
	}
	exe[n] = '\0';
	pathcat(b->out, sizeof(b->out), dirname(exe), "");
	pathcat(b->src, sizeof(b->src), env && *env ? env : SAAKM_SRC_DIR, "");
	b->cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "gcc";
	pathcat(path, sizeof(path), b->src, "/tools/replay/engine.c");
	if (access(path, R_OK)) {
		fprintf(stderr, "saakm replay: %s missing: set SAAKM_SRC to the SaaKM source tree\n", path);
		return 2;
	}
	return 0;
}

/* Run @argv, wait. Return: its exit status, or 127 if it could not run. */
static int run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 127;
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "saakm replay: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* libusim and libsaakm are built by make -C tools; build them if missing. */
static int ensure_libs(const struct build *b)
{
	char usim[PATH_MAX], lib[PATH_MAX], tools[PATH_MAX], o[PATH_MAX + 2];
	char *const argv[] = { "make", "-s", "-C", tools, o, "all", "usim", NULL };

	pathcat(usim, sizeof(usim), b->out, "/usim/libusim.a");
	pathcat(lib, sizeof(lib), b->out, "/libsaakm.a");
	if (!access(usim, R_OK) && !access(lib, R_OK))
		return 0;
	pathcat(tools, sizeof(tools), b->src, "/tools");
	pathcat(o, sizeof(o), "O=", b->out);
	if (run(argv) || access(usim, R_OK) || access(lib, R_OK)) {
		fprintf(stderr, "saakm replay: %s is missing and 'make -C %s %s' did not build it\n",
			usim, tools, o);
		return 2;
	}
	return 0;
}

/* The directory for cached programs, created. */
static void cache_dir(const struct build *b, char *dir, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char cmd[PATH_MAX + 16];

	if (xdg && *xdg)
		pathcat(dir, len, xdg, "/saakm/replay");
	else if (home && *home)
		pathcat(dir, len, home, "/.cache/saakm/replay");
	else
		pathcat(dir, len, b->out, "/replay-cache");
	pathcat(cmd, sizeof(cmd), dir, "");
	/* mkdir -p */
	for (char *p = cmd + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(cmd, 0755);
			*p = '/';
		}
	if (mkdir(cmd, 0755) && errno != EEXIST)
		mkdir(pathcat(dir, len, b->out, "/replay-cache"), 0755);
}

/* The hash of everything the program is built from. */
static uint64_t build_hash(const struct build *b)
{
	static const char *const files[] = {
		"usim/libusim.a", "usim/usim.cflags", "libsaakm.a",
	};
	static const char *const srcs[] = {
		"tools/replay/engine.c", "tools/lib/saakm_rec.h", "tools/lib/saakm.h",
		"tools/usim/usim.h", "kernel/src/include/uapi/linux/saakm.h",
		"kernel/src/include/uapi/linux/saakm_replay.h",
	};
	char path[PATH_MAX], dir[PATH_MAX];
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		pathcat3(path, sizeof(path), b->out, "/", files[i]);
		hash_file(&h, path);
	}
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		pathcat3(path, sizeof(path), b->src, "/", srcs[i]);
		hash_file(&h, path);
	}
	pathcat(dir, sizeof(dir), b->policy, "");
	hash_dir(&h, dirname(dir));
	hash_file(&h, b->policy);
	return fnv(h, b->cc, strlen(b->cc));
}

/* Compile the policy and the engine, link; into @b->bin. Return: 0 or 2. */
static int compile(const struct build *b)
{
	char tmp[PATH_MAX], pol_o[PATH_MAX + 16], eng_o[PATH_MAX + 16], usim_o[PATH_MAX];
	char policy_cc[PATH_MAX], engine[PATH_MAX], inc_dir[PATH_MAX + 2], dir[PATH_MAX];
	char uapi[PATH_MAX + 2], lib[PATH_MAX + 2], usim_h[PATH_MAX + 2];
	char libusim[PATH_MAX], libsaakm[PATH_MAX], out_tmp[PATH_MAX + 16];
	int ret = 2;

	pathcat(tmp, sizeof(tmp), b->bin, ".build-XXXXXX");
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "saakm replay: %s: %s\n", tmp, strerror(errno));
		return 2;
	}
	pathcat(pol_o, sizeof(pol_o), tmp, "/policy.o");
	pathcat(eng_o, sizeof(eng_o), tmp, "/engine.o");
	pathcat(out_tmp, sizeof(out_tmp), tmp, "/replay");
	pathcat(usim_o, sizeof(usim_o), b->out, "/usim");
	pathcat(policy_cc, sizeof(policy_cc), b->src, "/tools/usim/policy-cc");
	pathcat(engine, sizeof(engine), b->src, "/tools/replay/engine.c");
	pathcat(dir, sizeof(dir), b->policy, "");
	pathcat(inc_dir, sizeof(inc_dir), "-I", dirname(dir));
	pathcat3(uapi, sizeof(uapi), "-I", b->src, "/kernel/src/include/uapi");
	pathcat3(lib, sizeof(lib), "-I", b->src, "/tools/lib");
	pathcat3(usim_h, sizeof(usim_h), "-I", b->src, "/tools/usim");
	pathcat(libusim, sizeof(libusim), b->out, "/usim/libusim.a");
	pathcat(libsaakm, sizeof(libsaakm), b->out, "/libsaakm.a");
	{
		char *const cc_policy[] = { policy_cc, usim_o, inc_dir, "-c", (char *)b->policy, "-o",
					    pol_o, NULL };
		char *const cc_engine[] = { (char *)b->cc, "-O2", "-g", "-Wall", "-Wextra", "-Werror",
					    uapi, lib, usim_h, "-c", engine, "-o", eng_o, NULL };
		/* the engine sees the policy's state changes before they apply */
		char *const link[] = { (char *)b->cc, "-Wl,--wrap=saakm_change_state", "-o", out_tmp,
				       eng_o, pol_o, libusim, libsaakm, NULL };

		if (run(cc_policy))
			fprintf(stderr, "saakm replay: %s does not compile for user space (see above)\n", b->policy);
		else if (run(cc_engine) || run(link))
			fprintf(stderr, "saakm replay: building the replay program failed (see above)\n");
		else if (rename(out_tmp, b->bin))
			fprintf(stderr, "saakm replay: %s: %s\n", b->bin, strerror(errno));
		else
			ret = 0;
	}
	unlink(pol_o);
	unlink(eng_o);
	unlink(out_tmp);
	rmdir(tmp);
	return ret;
}

/* Build (or find in the cache) the replay program for @policy. Return: 0 or 2. */
static int build_program(struct build *b, const char *policy)
{
	char dir[PATH_MAX], base[PATH_MAX], hash[24], *dot;
	int ret;

	if ((ret = locate(b, policy)) || (ret = ensure_libs(b)))
		return ret;
	cache_dir(b, dir, sizeof(dir));
	pathcat(base, sizeof(base), basename(b->policy), "");
	dot = strrchr(base, '.');
	if (dot)
		*dot = '\0';
	b->hash = build_hash(b);
	snprintf(hash, sizeof(hash), "-%016llx", (unsigned long long)b->hash);
	pathcat3(b->bin, sizeof(b->bin), dir, "/", base);
	pathcat(b->bin, sizeof(b->bin), b->bin, hash);
	if (!access(b->bin, X_OK))
		return 0;
	return compile(b);
}

int cmd_replay(int argc, char **argv)
{
	const char *file = NULL, *policy = NULL, *last = "10";
	char *args[6];
	struct build b;
	int n = 0, verbose = 0, build_only = 0, ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			verbose = 1;
		else if (!strcmp(argv[i], "--build"))
			build_only = 1;
		else if (!strcmp(argv[i], "--last") && i + 1 < argc)
			last = argv[++i];
		else if (argv[i][0] == '-')
			return cli_usage("unknown option");
		else if (!file)
			file = argv[i];
		else if (!policy)
			policy = argv[i];
		else
			return cli_usage("too many arguments");
	}
	if (build_only) {
		if (!file || policy)
			return cli_usage("--build needs a policy source and nothing else");
		memset(&b, 0, sizeof(b));
		ret = build_program(&b, file);
		if (!ret)
			printf("%s\n", b.bin);
		return ret;
	}
	if (!file || !policy)
		return cli_usage("replay needs a recording and a policy source");
	if (strspn(last, "0123456789") != strlen(last) || !*last)
		return cli_usage("--last needs a number");
	if (access(file, R_OK)) {
		fprintf(stderr, "saakm replay: %s: %s\n", file, strerror(errno));
		return 2;
	}
	memset(&b, 0, sizeof(b));
	ret = build_program(&b, policy);
	if (ret)
		return ret;
	args[n++] = b.bin;
	args[n++] = (char *)file;
	args[n++] = "--last";
	args[n++] = (char *)last;
	if (verbose)
		args[n++] = "-v";
	args[n] = NULL;
	fflush(NULL);
	execv(b.bin, args);
	fprintf(stderr, "saakm replay: %s: %s\n", b.bin, strerror(errno));
	return 2;
}
