// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_warn_on_load - a module that is broken on purpose.
 *
 * Loading it triggers one WARN() with a distinctive message. The test
 * runner must notice the splat in the guest console and fail the run;
 * tests/harness/host/t_runner_catches_warn.sh checks that it does. The module
 * then loads normally, so the guest keeps running.
 */
#include <linux/bug.h>
#include <linux/init.h>
#include <linux/module.h>

static int __init saakm_warn_on_load_init(void)
{
	WARN(1, "saakm_warn_on_load: deliberate warning for the test runner\n");
	return 0;
}

static void __exit saakm_warn_on_load_exit(void)
{
}

module_init(saakm_warn_on_load_init);
module_exit(saakm_warn_on_load_exit);
MODULE_DESCRIPTION("SaaKM pipeline test: WARN on load");
MODULE_LICENSE("GPL");
