// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions: a user without CAP_SYS_NICE cannot move a task onto a
 * policy (EPERM) unless the policy allows unprivileged users, and cannot
 * flip the /sys/kernel/saakm switches.
 */
#include "saakm_test.h"
#include <fcntl.h>

#define NOBODY 65534

/* Run @fn as an unprivileged user in a child; its exit status. */
static int as_nobody(int (*fn)(long), long arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		_exit(fn(arg));
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 101;
}

static int try_join(long id)
{
	return -saakm_join(0, id, 0);
}

static int try_switch(long unused __attribute__((unused)))
{
	int fd = open("/sys/kernel/saakm/check_transitions", O_WRONLY);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

int main(void)
{
	int fifo = load_policy("fifo", "policies/fifo/saakm_fifo.ko", NULL);
	int probe = load_policy("probe", "tests/modules/saakm_probe/saakm_probe.ko",
				"unprivileged=1");

	TAP_CHECK(fifo > 0 && probe > 0, "fifo and probe (unprivileged=1) loaded");
	TAP_CHECK(as_nobody(try_join, fifo) == EPERM, "nobody cannot join fifo: EPERM");
	TAP_CHECK(as_nobody(try_join, probe) == 0, "nobody can join a policy that allows it");
	TAP_CHECK(as_nobody(try_switch, 0) == EACCES,
		  "nobody cannot open /sys/kernel/saakm switches for writing");
	TAP_CHECK(unload_module("saakm_fifo") == 0 && unload_module("saakm_probe") == 0,
		  "both modules unload");
	return tap_done();
}
