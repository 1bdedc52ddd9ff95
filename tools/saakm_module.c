// SPDX-License-Identifier: GPL-2.0
/*
 * saakm load, unload, upgrade and param: a policy's module by the policy's
 * name, or a new version of it by file.
 *
 * A policy NAME is built as the module saakm_NAME.ko. 'saakm load' looks
 * for it in the directories of $SAAKM_POLICY_PATH (colon-separated), then
 * where 'make install' puts policies (/lib/modules/RELEASE/extra/saakm),
 * then in the source tree saakm was built from (policies/NAME/). A value
 * the module refuses fails the load, and its message from the kernel log
 * is shown; the kernel loads a module given an unknown parameter, logging
 * it only, so such a load is taken back. 'saakm upgrade' loads a module
 * that replaces a loaded policy live (its ops set .upgrade) and then
 * unloads the old version's module. 'saakm param' reads and writes
 * /sys/module/MODULE/parameters.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "saakm.h"
#include "saakm_cli.h"

/* Policies the kernel registers at once, at most (SAAKM_MAX_POLICIES). */
#define MAX_POLICIES	64

#ifndef SAAKM_SRC_DIR
#define SAAKM_SRC_DIR "."
#endif

/* Is @name a possible policy name: a C identifier that fits the ABI? */
static int valid_name(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= SAAKM_NAME_LEN || isdigit((unsigned char)*name))
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

/* Call @fn with each directory where policy modules may be, in order. */
static int each_policy_dir(int (*fn)(const char *dir, void *arg), void *arg)
{
	const char *env = getenv("SAAKM_POLICY_PATH");
	char dir[PATH_MAX];
	struct utsname u;
	int ret;

	if (env && *env) {
		char *copy = strdup(env), *save = NULL, *d;

		for (d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			ret = fn(d, arg);
			if (ret) {
				free(copy);
				return ret;
			}
		}
		free(copy);
	}
	if (!uname(&u)) {
		snprintf(dir, sizeof(dir), "/lib/modules/%s/extra/saakm", u.release);
		ret = fn(dir, arg);
		if (ret)
			return ret;
	}
	return fn(SAAKM_SRC_DIR "/policies", arg);
}

struct find_arg {
	const char *name;
	char path[PATH_MAX];
};

/* DIR/saakm_NAME.ko (an install) or DIR/NAME/saakm_NAME.ko (a source tree) */
static int find_in(const char *dir, void *arg)
{
	struct find_arg *fa = arg;

	snprintf(fa->path, sizeof(fa->path), "%s/saakm_%s.ko", dir, fa->name);
	if (!access(fa->path, R_OK))
		return 1;
	snprintf(fa->path, sizeof(fa->path), "%s/%s/saakm_%s.ko", dir, fa->name, fa->name);
	return !access(fa->path, R_OK);
}

/* Print the policy name of each module in @dir (either layout). */
static int list_in(const char *dir, void *arg)
{
	char path[PATH_MAX], name[256];
	struct dirent *d;
	DIR *dp = opendir(dir);
	size_t n;

	(void)arg;
	while (dp && (d = readdir(dp))) {
		n = strlen(d->d_name);
		if (n > 9 && !strncmp(d->d_name, "saakm_", 6) &&
		    !strcmp(d->d_name + n - 3, ".ko")) {
			snprintf(name, sizeof(name), "%.*s", (int)(n - 9), d->d_name + 6);
		} else {
			snprintf(path, sizeof(path), "%s/%s/saakm_%s.ko", dir, d->d_name, d->d_name);
			if (d->d_name[0] == '.' || access(path, R_OK))
				continue;
			snprintf(name, sizeof(name), "%s", d->d_name);
		}
		fprintf(stderr, " %s", name);
	}
	if (dp)
		closedir(dp);
	return 0;
}

/*
 * The kernel log from now on: open /dev/kmsg at its end, so that the
 * messages a failed load or write leaves can be shown. Return: fd or -1.
 */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * The kernel's messages since kmsg_open() that mention @module or policy
 * @name, into @buf (one "  kernel: " line each); closes @fd.
 */
static void kmsg_collect(int fd, const char *module, const char *name, char *buf,
			 size_t len)
{
	char rec[1024];
	size_t used = 0;
	ssize_t n;

	*buf = '\0';
	if (fd < 0)
		return;
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		char *msg;

		if (n <= 0)
			continue;	/* records overwritten meanwhile: go on */
		rec[n] = '\0';
		msg = strchr(rec, ';');	/* "prio,seq,ts,flags;text\n" */
		if (msg && (strstr(msg, module) || strstr(msg, name)) && used < len)
			used += snprintf(buf + used, len - used, "  kernel: %s", msg + 1);
	}
	close(fd);
}

/* Append the names of the parameters of loaded module @mod to stderr. */
static void print_params(const char *mod)
{
	char dir[256];
	struct dirent *d;
	int nr = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", mod);
	dp = opendir(dir);
	fprintf(stderr, "(its parameters:");
	while (dp && (d = readdir(dp)))
		if (d->d_name[0] != '.' && ++nr)
			fprintf(stderr, " %s", d->d_name);
	fprintf(stderr, "%s)\n", nr ? "" : " none");
	if (dp)
		closedir(dp);
}

/* The module of loaded policy @name, from /proc/saakm/policies. */
static int policy_module(const char *name, char *mod, size_t len)
{
	struct saakm_policy_info pi;
	int ret = saakm_policy_get(name, &pi);

	if (!ret)
		snprintf(mod, len, "%s", *pi.module ? pi.module : "-");
	return ret;
}

/* "saakm: " and the message on stderr. Return: 1, a failure's exit status. */
static int __attribute__((format(printf, 1, 2))) load_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("saakm: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 1;
}

/* KEY[=VALUE] arguments argv[from..argc) into @args. Return: 0, or 2 (usage). */
static int join_params(int argc, char **argv, int from, char *args, size_t len)
{
	int i;

	*args = '\0';
	for (i = from; i < argc; i++) {
		if (argv[i][0] == '=' || strpbrk(argv[i], " \t\n"))
			return cli_usage("bad parameter '%s' (KEY=VALUE)", argv[i]);
		if (strlen(args) + strlen(argv[i]) + 2 > len)
			return cli_usage("parameters too long");
		strcat(strcat(args, *args ? " " : ""), argv[i]);
	}
	return 0;
}

/*
 * Load module file @path, module @mod, with parameters @args; a failure
 * shows the kernel's messages that name @mod or contain @also, and an
 * unknown parameter is reported as one of @what ("policy fifo"). Return:
 * 0, 1 after a failure, 2 for an unknown parameter (the load is taken back).
 */
static int insmod(const char *path, const char *mod, const char *args, const char *also,
		  const char *what)
{
	char log[4096], *unknown;
	int fd, kmsg, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return load_error("%s: %s", path, strerror(errno));
	kmsg = kmsg_open();
	ret = syscall(SYS_finit_module, fd, args, 0) ? errno : 0;
	close(fd);
	kmsg_collect(kmsg, mod, also, log, sizeof(log));
	if (ret) {
		fprintf(stderr, "saakm: loading %s failed: %s\n%s", path,
			ret == EEXIST ? "its module is loaded already (see 'saakm list')" :
			strerror(ret), log);
		return 1;
	}
	/*
	 * The kernel loads a module whatever unknown parameters it is given,
	 * and only logs them: take such a load back.
	 */
	unknown = strstr(log, "unknown parameter '");
	if (unknown) {
		unknown += strlen("unknown parameter '");
		fprintf(stderr, "saakm: %s has no parameter '%.*s' ", what,
			(int)strcspn(unknown, "'"), unknown);
		print_params(mod);
		syscall(SYS_delete_module, mod, O_NONBLOCK);
		return 2;
	}
	return 0;
}

/* saakm load NAME [KEY=VALUE...] */
int cmd_load(int argc, char **argv)
{
	struct find_arg fa = { 0 };
	char args[4096], mod[64], what[80];
	int ret;

	if (argc < 2)
		return cli_usage("load needs a policy name");
	fa.name = argv[1];
	if (!valid_name(fa.name))
		return cli_usage("'%s' is not a policy name", fa.name);
	ret = saakm_policy_id(fa.name);
	if (ret == -ENOSYS)
		return cli_policy_error(NULL, ret);
	if (ret > 0)
		return load_error("policy '%s' is already loaded", fa.name);
	if (!each_policy_dir(find_in, &fa)) {
		fprintf(stderr, "saakm: no module for policy '%s'; there are:", fa.name);
		each_policy_dir(list_in, NULL);
		fprintf(stderr, "\n(searched $SAAKM_POLICY_PATH, /lib/modules/RELEASE/extra/saakm, %s/policies)\n",
			SAAKM_SRC_DIR);
		return 1;
	}
	ret = join_params(argc, argv, 2, args, sizeof(args));
	if (ret)
		return ret;
	snprintf(mod, sizeof(mod), "saakm_%s", fa.name);
	snprintf(what, sizeof(what), "policy %s", fa.name);
	ret = insmod(fa.path, mod, args, fa.name, what);
	if (ret)
		return ret;
	ret = saakm_policy_id(fa.name);
	if (ret < 0)
		return load_error("%s loaded, but no policy '%s' registered", mod, fa.name);
	printf("loaded policy %s (id %d) from %s\n", fa.name, ret, fa.path);
	return 0;
}

/* The module name of file @path: its base name less .ko, '-' read as '_'. */
static int module_of_file(const char *path, char *mod, size_t len)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	char *c;

	if (n < 4 || strcmp(base + n - 3, ".ko") || n - 3 >= len)
		return -1;
	snprintf(mod, len, "%.*s", (int)(n - 3), base);
	for (c = mod; *c; c++)
		if (*c == '-')
			*c = '_';
	return 0;
}

/* The policy of @list[0..n) with id @id, or NULL. */
static const struct saakm_policy_info *policy_by_id(const struct saakm_policy_info *list,
						    int n, int id)
{
	int i;

	for (i = 0; i < n; i++)
		if (list[i].id == id)
			return &list[i];
	return NULL;
}

/* saakm upgrade [--keep-old] FILE.ko [KEY=VALUE...] */
int cmd_upgrade(int argc, char **argv)
{
	struct saakm_policy_info before[MAX_POLICIES], after[MAX_POLICIES];
	const struct saakm_policy_info *now = NULL, *old;
	int i, nb, na, keep = 0, ret;
	char args[4096], mod[64], sys[128], what[80];
	const char *path;

	if (argc > 1 && !strcmp(argv[1], "--keep-old")) {
		keep = 1;
		argv++;
		argc--;
	}
	if (argc < 2)
		return cli_usage("upgrade needs a module file");
	path = argv[1];
	if (module_of_file(path, mod, sizeof(mod)))
		return cli_usage("'%s' is not a module file (NAME.ko)", path);
	ret = join_params(argc, argv, 2, args, sizeof(args));
	if (ret)
		return ret;
	nb = saakm_list(before, MAX_POLICIES);
	if (nb < 0)
		return cli_policy_error(NULL, nb);
	snprintf(sys, sizeof(sys), "/sys/module/%s", mod);
	if (!access(sys, F_OK))
		return load_error("module %s is loaded already: an upgrade loads a new module", mod);

	snprintf(what, sizeof(what), "module %s", mod);
	ret = insmod(path, mod, args, "saakm: upgrade of", what);
	if (ret)
		return ret;
	na = saakm_list(after, MAX_POLICIES);
	for (i = 0; i < na && !now; i++)
		if (!strcmp(after[i].module, mod))
			now = &after[i];
	if (!now)
		return load_error("%s loaded, but it runs no policy", mod);
	old = policy_by_id(before, nb, now->id);
	if (!old || !strcmp(old->module, mod)) {
		printf("no policy %s was loaded: %s registered it (id %d)\n", now->name, mod, now->id);
		return 0;
	}
	printf("upgraded policy %s (id %d, %d tasks) to generation %d: %s -> %s; every CPU stopped for %.1f us\n",
	       now->name, now->id, now->tasks, now->generation, old->module, mod,
	       now->upgrade_ns / 1000.0);
	if (keep || !strcmp(old->module, "-"))
		return 0;
	if (syscall(SYS_delete_module, old->module, O_NONBLOCK))
		return load_error("the old version's module %s stays loaded: %s", old->module,
				  strerror(errno));
	printf("unloaded the old version's module %s\n", old->module);
	return 0;
}

/* saakm unload NAME */
int cmd_unload(int argc, char **argv)
{
	char mod[64];
	int ret;

	if (argc != 2)
		return cli_usage("unload needs one policy name");
	ret = policy_module(argv[1], mod, sizeof(mod));
	if (ret)
		return cli_policy_error(argv[1], ret);
	if (!strcmp(mod, "-"))
		return load_error("policy '%s' is built into the kernel", argv[1]);
	/* Its tasks go back to the fair class while the module leaves. */
	if (syscall(SYS_delete_module, mod, O_NONBLOCK)) {
		ret = errno;
		return load_error("unloading %s: %s", mod,
				  ret == EWOULDBLOCK || ret == EBUSY ?
				  "in use (another module or a reference holds it)" : strerror(ret));
	}
	printf("unloaded policy %s (module %s)\n", argv[1], mod);
	return 0;
}

/* Print KEY=VALUE for parameter @key of @dir, or just VALUE if @bare. */
static int param_show(const char *dir, const char *key, int bare)
{
	char path[PATH_MAX], val[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, key);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	val[n] = '\0';
	val[strcspn(val, "\n")] = '\0';
	printf(bare ? "%s%s\n" : "%s=%s\n", bare ? "" : key, val);
	return 0;
}

static int param_set(const char *dir, const char *key, const char *val, const char *mod,
		     const char *name)
{
	char path[PATH_MAX], log[2048];
	int fd, kmsg, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = errno;
		fprintf(stderr, "saakm: %s: %s\n", key,
			ret == EACCES ? "read-only (set it at load time)" : strerror(ret));
		return 1;
	}
	kmsg = kmsg_open();
	if (write(fd, val, strlen(val)) < 0)
		ret = errno;
	close(fd);
	kmsg_collect(kmsg, mod, name, log, sizeof(log));
	if (ret) {
		fprintf(stderr, "saakm: %s=%s: %s\n%s", key, val,
			ret == EINVAL ? "refused by the policy" : strerror(ret), log);
		return 1;
	}
	return 0;
}

/* saakm param NAME [KEY[=VALUE]...] */
int cmd_param(int argc, char **argv)
{
	char mod[64], dir[256];
	struct dirent *d;
	int i, ret, status = 0;
	DIR *dp;

	if (argc < 2)
		return cli_usage("param needs a policy name");
	ret = policy_module(argv[1], mod, sizeof(mod));
	if (ret)
		return cli_policy_error(argv[1], ret);
	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", mod);
	if (argc == 2) {
		dp = opendir(dir);
		while (dp && (d = readdir(dp)))
			if (d->d_name[0] != '.')
				param_show(dir, d->d_name, 0);
		if (dp)
			closedir(dp);
		return 0;
	}
	/* Check every key first: a typo must not leave half the writes done. */
	for (i = 2; i < argc; i++) {
		char path[PATH_MAX];
		size_t len = strcspn(argv[i], "=");

		snprintf(path, sizeof(path), "%s/%.*s", dir, (int)len, argv[i]);
		if (!len || memchr(argv[i], '/', len) || access(path, F_OK))
			return cli_usage("policy '%s' (module %s) has no parameter '%.*s'",
					 argv[1], mod, (int)len, argv[i]);
	}
	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			status |= param_show(dir, argv[i], 1) ? 1 : 0;
			continue;
		}
		*eq = '\0';
		status |= param_set(dir, argv[i], eq + 1, mod, argv[1]);
	}
	return status;
}
