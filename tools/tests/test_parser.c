// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of libsaakm: the /proc/saakm/policies parser (against the
 * fixture directories in tools/tests/fixtures, via SAAKM_PROC), name/id
 * resolution, error messages, and the "no SaaKM kernel" and argument errors
 * that need no SaaKM kernel. Prints TAP; exits 1 if anything failed.
 * Usage: test_parser FIXTURES_DIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "saakm.h"

static int n, failed;

#define CHECK(cond, desc)						\
	do {								\
		if (cond) {						\
			printf("ok %d %s\n", ++n, desc);		\
		} else {						\
			printf("not ok %d %s # line %d: %s\n", ++n, desc, \
			       __LINE__, #cond);			\
			failed++;					\
		}							\
	} while (0)

static void use(const char *fixtures, const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", fixtures, dir);
	setenv("SAAKM_PROC", path, 1);
}

int main(int argc, char **argv)
{
	struct saakm_policy_info pi[8];
	static char big[SAAKM_ATTR_MAX_SIZE + 1];
	char name[SAAKM_NAME_LEN];
	struct stat st;
	int ret, id = -1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}

	use(argv[1], "basic");
	ret = saakm_list(pi, 8);
	CHECK(ret == 3, "basic: three policies listed");
	CHECK(pi[0].id == 1 && !strcmp(pi[0].name, "fifo") && pi[0].tasks == 3 &&
	      !strcmp(pi[0].state, "enabled"), "basic: first line parsed");
	CHECK(pi[1].id == 2 && !strcmp(pi[1].state, "disabling"), "basic: disabling state");
	CHECK(pi[2].id == 7 && !strcmp(pi[2].name, "broken") &&
	      !strcmp(pi[2].state, "ejected"), "basic: ejected state");
	memset(pi, 0, sizeof(pi));
	CHECK(saakm_list(pi, 1) == 3 && pi[0].id == 1 && pi[1].id == 0,
	      "list: returns the total, fills at most max");
	CHECK(saakm_list(NULL, 0) == 3, "list: NULL counts only");
	CHECK(saakm_policy_id("fifo") == 1, "policy_id: by name");
	CHECK(saakm_policy_id("7") == 7, "policy_id: by decimal id");
	CHECK(saakm_policy_id("rr_test") == 2, "policy_id: name with underscore");
	CHECK(saakm_policy_id("nosuch") == -ENOENT, "policy_id: unknown name is -ENOENT");
	CHECK(saakm_policy_id("3") == -ENOENT, "policy_id: unloaded id is -ENOENT");
	CHECK(saakm_policy_id("1x") == -ENOENT && saakm_policy_id("") == -ENOENT &&
	      saakm_policy_id("-1") == -ENOENT && saakm_policy_id(NULL) == -ENOENT,
	      "policy_id: junk is -ENOENT");
	CHECK(saakm_policy_id("99999999999999999999") == -ENOENT, "policy_id: overflow is -ENOENT");
	CHECK(saakm_policy_id("fif") == -ENOENT, "policy_id: no prefix match");
	CHECK(!saakm_policy_name(7, name, sizeof(name)) && !strcmp(name, "broken"),
	      "policy_name: id to name");
	CHECK(saakm_policy_name(5, name, sizeof(name)) == -ENOENT, "policy_name: unknown id");

	use(argv[1], "empty");
	CHECK(saakm_list(pi, 8) == 0, "empty: no policies");
	CHECK(saakm_policy_id("fifo") == -ENOENT, "empty: lookup is -ENOENT");

	use(argv[1], "malformed");
	ret = saakm_list(pi, 8);
	CHECK(ret == 2, "malformed: only well-formed lines with id > 0 count");
	CHECK(ret == 2 && pi[0].id == 4 && pi[1].id == 9 && !strcmp(pi[1].name, "last"),
	      "malformed: good lines parsed, last line without newline too");
	CHECK(saakm_policy_id("5") == -ENOENT, "malformed: over-long name skipped");

	use(argv[1], "does-not-exist");
	CHECK(saakm_list(pi, 8) == -ENOSYS, "no /proc/saakm: list is -ENOSYS");
	CHECK(saakm_policy_id("fifo") == -ENOSYS, "no /proc/saakm: policy_id is -ENOSYS");
	CHECK(saakm_policy_id("1") == -ENOSYS, "no /proc/saakm: numeric policy_id is -ENOSYS");
	CHECK(!strcmp(saakm_strerror(-ENOSYS),
		      "this kernel has no SaaKM support (/proc/saakm is missing)"),
	      "strerror: no SaaKM message");
	CHECK(strstr(saakm_strerror(-EPERM), "needs CAP_SYS_NICE (try as root)") &&
	      saakm_strerror(EPERM) == saakm_strerror(-EPERM), "strerror: EPERM message");
	CHECK(strstr(saakm_strerror(-E2BIG), "4096"), "strerror: E2BIG message");
	CHECK(!strcmp(saakm_strerror(-EIO), strerror(EIO)), "strerror: others as strerror()");
	CHECK(!strcmp(saakm_sched_name(8), "SCHED_SAAKM") &&
	      !strcmp(saakm_sched_name(0), "SCHED_OTHER") &&
	      !strcmp(saakm_sched_name(42), "SCHED_UNKNOWN"), "sched_name");

	/* Argument checks done before any syscall. */
	CHECK(saakm_set(0, 1, big, sizeof(big), 0) == -E2BIG, "set: blob over 4096 is -E2BIG");
	CHECK(saakm_set_nice(0, 1, 0, NULL, 0, 0x80) == -EINVAL, "set: unknown flag is -EINVAL");
	CHECK(saakm_set(0, -1, NULL, 0, 0) == -EINVAL, "set: negative id is -EINVAL");
	CHECK(saakm_set(4194305, 1, NULL, 0, 0) == -ESRCH, "set: no such pid is -ESRCH");
	CHECK(saakm_get(4194305, &id) == -ESRCH, "get: no such pid is -ESRCH");
	ret = saakm_get(0, &id);
	CHECK(ret >= 0 && ret != SCHED_SAAKM && id == 0, "get: self is not SCHED_SAAKM, id 0");

	/* On a kernel without SaaKM, joining fails with -ENOSYS. */
	if (stat("/proc/saakm", &st) == 0) {
		printf("ok %d set: -ENOSYS without SaaKM # SKIP kernel has SaaKM\n", ++n);
		printf("ok %d set KEEP: -ENOSYS without SaaKM # SKIP kernel has SaaKM\n", ++n);
	} else {
		unsetenv("SAAKM_PROC");
		CHECK(saakm_set(0, 1, NULL, 0, 0) == -ENOSYS, "set: -ENOSYS without SaaKM");
		CHECK(saakm_set(0, SAAKM_ID_KEEP, NULL, 0, 0) == -ENOSYS,
		      "set KEEP: -ENOSYS without SaaKM");
		CHECK(saakm_get(0, NULL) >= 0, "get: works on a kernel without SaaKM");
	}
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
