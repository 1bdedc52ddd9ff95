// SPDX-License-Identifier: GPL-2.0
/*
 * saakm new NAME [--dir DIR]: start a policy from the FIFO tutorial.
 *
 * Writes DIR/NAME/saakm_NAME.c, the FIFO tutorial policy with every "fifo"
 * of its code renamed NAME and its header comment replaced by one for the
 * author to fill in, and DIR/NAME/Kbuild, and two tests: host unit tests
 * (t_NAME.c) and an opt-in guest test (t_saakm_NAME.sh). DIR defaults to
 * "policies". When DIR is the policies/ directory of a SaaKM source tree,
 * the tests go where that tree's runners find them, tests/policy/ and
 * tests/guest/; anywhere else no runner would, so they stay next to the
 * policy. Nothing is ever overwritten: if any file to write exists, nothing
 * is written.
 *
 * The tutorial is written once: the policy and its Kbuild are generated
 * from the real policies/fifo/, renamed here, so the new policy starts as
 * whatever fifo is today. The two tests come from tools/templates/, where
 * @NAME@, @SRC@ (the policy's source) and @KO@ (its module, as the guest
 * sees it) stand for what this file puts in. All four are looked up in
 * $SAAKM_TEMPLATE_DIR, else in SAAKM_SRC_DIR (the source tree saakm was
 * built from), else in ../share/saakm beside the binary (where make install
 * puts them), each at its path in a source tree or else by its name alone,
 * so that an installed copy can keep the four files in one flat directory.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/saakm.h>	/* SAAKM_NAME_LEN */
#include "saakm_cli.h"

#ifndef SAAKM_SRC_DIR
#define SAAKM_SRC_DIR "."
#endif

/* The word of the tutorial's identifiers that becomes NAME. */
#define TUTORIAL	"fifo"

enum { T_POLICY, T_KBUILD, T_UNIT, T_GUEST, NR_TEMPLATES };

/* Each file read: its path in a source tree; its name alone is the basename. */
static const char *const template_path[NR_TEMPLATES] = {
	[T_POLICY] = "policies/fifo/saakm_fifo.c",
	[T_KBUILD] = "policies/fifo/Kbuild",
	[T_UNIT] = "tools/templates/t_NAME.c",
	[T_GUEST] = "tools/templates/t_saakm_NAME.sh",
};

/* Words NAME may not be: C's keywords, and what gcc -std=gnu11 predefines. */
static const char *const reserved[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
	"int", "long", "register", "restrict", "return", "short", "signed",
	"sizeof", "static", "struct", "switch", "typedef", "union", "unsigned",
	"void", "volatile", "while", "asm", "typeof", "linux", "unix",
};

/* A growing string. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s) {
			fputs("saakm new: out of memory\n", stderr);
			exit(1);
		}
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char buf[PATH_MAX * 2];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sb_add(b, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Format a path into @dst (PATH_MAX bytes); one too long is refused, never cut. */
static char *path_fmt(char *dst, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		fputs("saakm new: a path is too long\n", stderr);
		exit(1);
	}
	return dst;
}

static int is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * Why @name cannot name a policy, or NULL if it can: it becomes a C
 * identifier (the policy's variable, the prefix of its functions), the
 * registered name (at most SAAKM_NAME_LEN - 1 characters) and part of the
 * module's name and of the tests' file names.
 */
static const char *bad_name(const char *name)
{
	static char why[128];
	size_t i, n = strlen(name);

	if (!n)
		return "it is empty";
	if (!isalpha((unsigned char)name[0]) && name[0] != '_')
		return "a C identifier starts with a letter or '_'";
	for (i = 0; i < n; i++)
		if (!is_word_char(name[i]) || !isascii(name[i]))
			return "a C identifier has only letters, digits and '_'";
	if (n > SAAKM_NAME_LEN - 1) {
		snprintf(why, sizeof(why), "it has %zu characters, a policy name at most %d",
			 n, SAAKM_NAME_LEN - 1);
		return why;
	}
	if (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1])))
		return "identifiers that start with '__' or '_' and a capital are the compiler's";
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(name, reserved[i]))
			return "it is a C keyword or a name the compiler predefines";
	return NULL;
}

/* Read all of @path, NUL-terminated. Return: the text, or NULL (errno). */
static char *read_all(const char *path)
{
	struct sbuf b = { 0 };
	char buf[8192];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	sb_add(&b, "", 0);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&b, buf, n);
	if (ferror(f)) {
		fclose(f);
		free(b.s);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	return b.s;
}

/*
 * Where the templates are when $SAAKM_TEMPLATE_DIR is not set: the source
 * tree saakm was built from, or, once it is installed elsewhere (make
 * install), ../share/saakm beside the binary.
 */
static const char *template_dir(void)
{
	static char dir[PATH_MAX + 16];
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (!access(SAAKM_SRC_DIR "/policies/fifo/saakm_fifo.c", R_OK))
		return SAAKM_SRC_DIR;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return SAAKM_SRC_DIR;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(dir, sizeof(dir), "%s/../share/saakm", exe);
	return dir;
}

/*
 * Find template @t under @dir: at its source-tree path, else by its name
 * alone. Return: its text, or NULL after saying where it was looked for.
 */
static char *read_template(const char *dir, int t, char *path)
{
	const char *base = strrchr(template_path[t], '/') + 1;
	char *text;

	text = read_all(path_fmt(path, "%s/%s", dir, template_path[t]));
	if (!text && errno == ENOENT)
		text = read_all(path_fmt(path, "%s/%s", dir, base));
	if (!text)
		fprintf(stderr, "saakm new: template %s not found in %s (as %s or %s): set "
			"SAAKM_TEMPLATE_DIR to a SaaKM source tree\n", base, dir,
			template_path[t], base);
	return text;
}

/*
 * True if @word is an identifier of @code at file scope (outside braces,
 * comments, strings and preprocessor lines): NAME must not be one, or the
 * variable that holds the registered policy (the tutorial's "fifo", at
 * file scope too) would clash with it. A local of a function may be NAME.
 */
static int file_scope_word(const char *code, const char *word)
{
	size_t n = strlen(word);
	const char *p = code, *end;
	int bol = 1, depth = 0;

	while (*p) {
		if (bol && *p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		bol = *p == '\n' || (bol && isspace((unsigned char)*p));
		if (p[0] == '/' && p[1] == '*') {
			end = strstr(p + 2, "*/");
			p = end ? end + 2 : p + strlen(p);
		} else if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
		} else if (*p == '"' || *p == '\'') {
			for (end = p + 1; *end && *end != *p; end++)
				if (*end == '\\' && end[1])
					end++;
			p = *end ? end + 1 : end;
		} else if (is_word_char(*p)) {
			for (end = p; is_word_char(*end); end++)
				;
			if (!depth && (size_t)(end - p) == n && !memcmp(p, word, n))
				return 1;
			p = end;
		} else {
			depth += (*p == '{') - (*p == '}');
			p++;
		}
	}
	return 0;
}

/*
 * Copy @len bytes of @src to @b with the tutorial's word renamed: in each
 * run of word characters, each '_'-separated part that is exactly "fifo"
 * becomes @name. So fifo_rq, saakm_fifo and "fifo" follow the new name,
 * and SAAKM_RQ_FIFO (the kind of runqueue) and the word FIFO do not.
 */
static void add_renamed(struct sbuf *b, const char *src, size_t len, const char *name)
{
	const char *p = src, *end = src + len, *part;
	size_t n = strlen(TUTORIAL);

	while (p < end) {
		if (!is_word_char(*p)) {
			sb_add(b, p++, 1);
			continue;
		}
		/* one run of word characters, part by part */
		while (p < end && is_word_char(*p)) {
			for (part = p; p < end && is_word_char(*p) && *p != '_'; p++)
				;
			if ((size_t)(p - part) == n && !memcmp(part, TUTORIAL, n))
				sb_puts(b, name);
			else
				sb_add(b, part, p - part);
			if (p < end && *p == '_')
				sb_add(b, p++, 1);
		}
	}
}

/* Copy @src to @b with each @NAME@, @SRC@ and @KO@ replaced. */
static void add_filled(struct sbuf *b, const char *src, const char *name, const char *csrc,
		       const char *ko)
{
	const char *keys[] = { "@NAME@", "@SRC@", "@KO@" }, *vals[] = { name, csrc, ko };
	const char *p = src, *at;
	size_t i;

	while ((at = strchr(p, '@'))) {
		sb_add(b, p, at - p);
		for (i = 0; i < 3; i++)
			if (!strncmp(at, keys[i], strlen(keys[i])))
				break;
		if (i < 3) {
			sb_puts(b, vals[i]);
			p = at + strlen(keys[i]);
		} else {
			sb_add(b, at, 1);
			p = at + 1;
		}
	}
	sb_puts(b, p);
}

/* The header comment of the new policy, for its author to fill in. */
static const char policy_header[] =
"/*\n"
" * saakm_@NAME@: TODO: what this policy is for, in one line.\n"
" *\n"
" * TODO: how it schedules, in a paragraph: where a task goes when it is\n"
" * created or wakes up, which task a CPU runs next, when a running task\n"
" * gives its CPU back, how an idle CPU finds work. Then what it is good at\n"
" * and what it is bad at.\n"
" *\n"
" * Parameters: TODO: each module parameter, its default and what it does.\n"
" *\n"
" * 'saakm new' made this file from the FIFO tutorial policy,\n"
" * policies/fifo/saakm_fifo.c, which docs/writing-a-policy.md walks\n"
" * through: as generated, it schedules exactly as saakm_fifo does, and the\n"
" * comments below are the tutorial's. Rewrite them as the code changes, and\n"
" * MODULE_DESCRIPTION at the end.\n"
" */\n";

/*
 * The new policy's source from the tutorial's @tut: its SPDX line, then our
 * header instead of the tutorial's first comment, then the rest renamed,
 * with a MODULE_DESCRIPTION of its own. Return: 0, or 1 (said why) if
 * @tut does not have the shape of the tutorial.
 */
static int make_policy(struct sbuf *b, const char *tut, const char *name, const char *path)
{
	const char *p = tut, *end, *desc;
	char quoted[SAAKM_NAME_LEN + 2];

	if (!strncmp(p, "// SPDX-License-Identifier:", 27)) {
		end = p + strcspn(p, "\n");
		sb_add(b, p, end - p + (*end == '\n'));
		p = end + (*end == '\n');
	}
	end = strncmp(p, "/*", 2) ? NULL : strstr(p, "*/");
	if (!end) {
		fprintf(stderr, "saakm new: %s: no header comment after the SPDX line: "
			"not the FIFO tutorial?\n", path);
		return 1;
	}
	p = end + 2 + (end[2] == '\n');
	add_filled(b, policy_header, name, "", "");
	desc = strstr(p, "\nMODULE_DESCRIPTION(");
	if (desc) {
		add_renamed(b, p, desc + 1 - p, name);
		sb_printf(b, "MODULE_DESCRIPTION(\"SaaKM %s policy\");\n", name);
		p = desc + 1 + strcspn(desc + 1, "\n");
		p += *p == '\n';
	}
	add_renamed(b, p, strlen(p), name);
	/* the one rename that must have happened: the name it registers */
	snprintf(quoted, sizeof(quoted), "\"%s\"", name);
	if (!strstr(b->s, "saakm_register_policy(") || !strstr(b->s, quoted)) {
		fprintf(stderr, "saakm new: %s does not register a policy named \"%s\": "
			"not the FIFO tutorial?\n", path, TUTORIAL);
		return 1;
	}
	return 0;
}

/* @path shown relative to @cwd when it is below it. */
static const char *shown(const char *path, const char *cwd)
{
	size_t n = strlen(cwd);

	if (!strncmp(path, cwd, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

/*
 * The SaaKM source tree @dir is in (itself or the nearest directory above
 * it with tests/policy/Makefile and tests/guest/lib.sh), into @root.
 * Return: 1 if found, else 0.
 */
static int find_tree(const char *dir, char *root)
{
	char a[PATH_MAX], b[PATH_MAX];
	char *slash;

	path_fmt(root, "%s", dir);
	for (;;) {
		path_fmt(a, "%s/tests/policy/Makefile", root);
		path_fmt(b, "%s/tests/guest/lib.sh", root);
		if (!access(a, F_OK) && !access(b, F_OK))
			return 1;
		slash = strrchr(root, '/');
		if (!slash || slash == root)
			return 0;
		*slash = '\0';
	}
}

/* A path as a shell word between double quotes: ", $, ` and \ escaped. */
static void add_sh_quoted(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (strchr("\"$`\\", *s))
			sb_add(b, "\\", 1);
		sb_add(b, s, 1);
	}
}

/* What 'saakm new' is to write: each file's path, text and mode. */
struct out_file {
	char path[PATH_MAX];
	struct sbuf text;
	mode_t mode;
};

/*
 * Write @f; never over an existing file, and a file it created but could
 * not write whole is removed. Return: 0 or -errno.
 */
static int write_new(const struct out_file *f)
{
	size_t done = 0;
	ssize_t n = 0;
	int err = 0, fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, f->mode);

	if (fd < 0)
		return -errno;
	while (done < f->text.len && !err) {
		n = write(fd, f->text.s + done, f->text.len - done);
		if (n > 0)
			done += n;
		else if (n == 0 || errno != EINTR)
			err = n ? -errno : -EIO;
	}
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(f->path);
	return err;
}

/* Where things go, worked out from DIR, NAME and the tree DIR is in. */
struct plan {
	char cwd[PATH_MAX];
	char dir[PATH_MAX];		/* DIR, absolute */
	char root[PATH_MAX];		/* the source tree, or "" */
	char pol[PATH_MAX];		/* DIR/NAME */
	int wired;			/* DIR is root/policies: the runners see it */
};

static int make_plan(struct plan *pl, const char *dir_arg, const char *name, int dir_given)
{
	char pols[PATH_MAX];
	struct stat st;

	if (!getcwd(pl->cwd, sizeof(pl->cwd)))
		snprintf(pl->cwd, sizeof(pl->cwd), "/");
	errno = 0;
	if (!realpath(dir_arg, pl->dir) || stat(pl->dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "saakm new: %s: %s%s\n", dir_arg,
			errno ? strerror(errno) : "not a directory", dir_given ? "" :
			" (run saakm new at the top of a SaaKM source tree, or give --dir)");
		return 1;
	}
	if (!find_tree(pl->dir, pl->root))
		pl->root[0] = '\0';
	path_fmt(pols, "%s/policies", pl->root);
	pl->wired = pl->root[0] && !strcmp(pols, pl->dir);
	path_fmt(pl->pol, "%s/%s", pl->dir, name);
	return 0;
}

/* Fill @files[] from the templates @tmpl[]. Return: 0 or 1. */
static int render(const struct plan *pl, const char *name, char *const tmpl[],
		  const char *tmpl_path, struct out_file files[])
{
	char csrc[PATH_MAX];
	struct sbuf ko = { 0 };
	const char *rel = pl->root[0] ? shown(pl->pol, pl->root) : pl->pol;

	/* the policy's source and module as the tests name them */
	path_fmt(csrc, "%s/saakm_%s.c", rel, name);
	if (pl->root[0])
		sb_puts(&ko, "$SAAKM_ROOT/");
	add_sh_quoted(&ko, rel);
	sb_printf(&ko, "/saakm_%s.ko", name);

	path_fmt(files[T_POLICY].path, "%s/saakm_%s.c", pl->pol, name);
	if (make_policy(&files[T_POLICY].text, tmpl[T_POLICY], name, tmpl_path)) {
		free(ko.s);
		return 1;
	}
	path_fmt(files[T_KBUILD].path, "%s/Kbuild", pl->pol);
	add_renamed(&files[T_KBUILD].text, tmpl[T_KBUILD], strlen(tmpl[T_KBUILD]), name);
	if (pl->wired) {
		path_fmt(files[T_UNIT].path, "%s/tests/policy/t_%s.c", pl->root, name);
		path_fmt(files[T_GUEST].path, "%s/tests/guest/t_saakm_%s.sh", pl->root, name);
	} else {
		path_fmt(files[T_UNIT].path, "%s/t_%s.c", pl->pol, name);
		path_fmt(files[T_GUEST].path, "%s/t_saakm_%s.sh", pl->pol, name);
	}
	add_filled(&files[T_UNIT].text, tmpl[T_UNIT], name, csrc, "");
	add_filled(&files[T_GUEST].text, tmpl[T_GUEST], name, csrc, ko.s);
	for (int i = 0; i < NR_TEMPLATES; i++)
		files[i].mode = i == T_GUEST ? 0755 : 0644;
	free(ko.s);
	return 0;
}

/*
 * Create DIR/NAME and the files, or nothing: anything in the way is
 * reported before the first write, and a failed write takes back what was
 * written. Return: 0 or 1.
 */
static int create_all(const struct plan *pl, struct out_file files[])
{
	struct stat st;
	int i, err;

	if (!lstat(pl->pol, &st)) {
		fprintf(stderr, "saakm new: %s exists already: nothing written\n",
			shown(pl->pol, pl->cwd));
		return 1;
	}
	for (i = 0; i < NR_TEMPLATES; i++)
		if (!lstat(files[i].path, &st)) {
			fprintf(stderr, "saakm new: %s exists already: nothing written\n",
				shown(files[i].path, pl->cwd));
			return 1;
		}
	if (mkdir(pl->pol, 0755)) {
		fprintf(stderr, "saakm new: %s: %s\n", shown(pl->pol, pl->cwd), strerror(errno));
		return 1;
	}
	for (i = 0; i < NR_TEMPLATES; i++) {
		err = write_new(&files[i]);
		if (err) {
			fprintf(stderr, "saakm new: %s: %s: nothing written\n",
				shown(files[i].path, pl->cwd), strerror(-err));
			while (--i >= 0)
				unlink(files[i].path);
			rmdir(pl->pol);
			return 1;
		}
	}
	return 0;
}

/*
 * What was made, and what to run next. Paths are shown from the top of the
 * tree when there is one (where the make commands run), else from the
 * current directory.
 */
static void report(const struct plan *pl, const char *name, const struct out_file files[])
{
	static const char *const what[NR_TEMPLATES] = {
		[T_POLICY] = "the policy: fill in its header comment",
		[T_KBUILD] = "builds it as a module",
		[T_UNIT] = "host unit tests (libusim)",
		[T_GUEST] = "guest test, opt-in",
	};
	const char *base = pl->root[0] ? pl->root : pl->cwd;
	const char *pol = pl->root[0] ? shown(pl->pol, pl->root) : pl->pol;
	int i;

	printf("saakm new: the policy %s, from the FIFO tutorial", name);
	if (strcmp(base, pl->cwd))
		printf(", in %s", base);
	printf(":\n");
	for (i = 0; i < NR_TEMPLATES; i++)
		printf("  %-40s  %s\n", shown(files[i].path, base), what[i]);
	if (pl->wired) {
		printf("next:\n");
		printf("  make policy-test P=%-21s  its unit tests and stress seeds, on the host\n",
		       name);
		printf("  %-40s  saakm_%s.ko (and the other modules), for build/linux\n",
		       "make modules", name);
		printf("  make test T=saakm_%-22s  its guest test (DEBUG=0: the normal kernel"
		       " only)\n", name);
		return;
	}
	/* the runners would not find them: say how to put them where they look */
	printf("The test runners look only in a source tree's policies/, tests/policy/\n"
	       "and tests/guest/, so the tests stay next to the policy. At the top of a\n"
	       "SaaKM tree:\n");
	printf("  scripts/build-module.sh %s\n", pol);
	printf("  host: move t_%s.c to tests/policy/, add %s=%s/saakm_%s.c to POLICIES\n"
	       "        in tests/policy/Makefile, then make policy-test P=%s\n",
	       name, name, pol, name, name);
	printf("  guest: move t_saakm_%s.sh to tests/guest/, then make test T=saakm_%s\n",
	       name, name);
}

int cmd_new(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name, *dir = NULL, *why, *env = getenv("SAAKM_TEMPLATE_DIR");
	const char *tdir = env && *env ? env : template_dir();
	struct out_file files[NR_TEMPLATES];
	char *tmpl[NR_TEMPLATES] = { NULL };
	char tmpl_policy[PATH_MAX], path[PATH_MAX];
	struct plan pl;
	int c, i, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'h': return cli_help();
		default: return cli_usage(NULL);
		}
	}
	if (optind >= argc)
		return cli_usage("new needs the name of the policy");
	if (optind + 1 < argc)
		return cli_usage("new takes one name, not '%s' too", argv[optind + 1]);
	name = argv[optind];
	why = bad_name(name);
	if (why)
		return cli_usage("'%s' cannot name a policy: %s", name, why);

	memset(files, 0, sizeof(files));
	for (i = 0; i < NR_TEMPLATES; i++) {
		tmpl[i] = read_template(tdir, i, i == T_POLICY ? tmpl_policy : path);
		if (!tmpl[i])
			goto out;
	}
	if (!strcmp(name, TUTORIAL)) {
		ret = cli_usage("'%s' cannot name a policy: it is the tutorial's own name", name);
		goto out;
	}
	if (file_scope_word(tmpl[T_POLICY], name)) {
		ret = cli_usage("'%s' cannot name a policy: the tutorial has that name at "
				"file scope already (%s)", name, tmpl_policy);
		goto out;
	}
	if (make_plan(&pl, dir ? dir : "policies", name, !!dir) ||
	    render(&pl, name, tmpl, tmpl_policy, files) || create_all(&pl, files))
		goto out;
	report(&pl, name, files);
	ret = 0;
out:
	for (i = 0; i < NR_TEMPLATES; i++) {
		free(tmpl[i]);
		free(files[i].text.s);
	}
	return ret;
}
