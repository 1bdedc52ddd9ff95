// SPDX-License-Identifier: GPL-2.0
/*
 * saakm_hello - the smallest possible out-of-tree module.
 *
 * The test suite uses it to prove that modules build against build/linux,
 * load, show up in /proc/modules and unload. It prints one line on load and
 * one on unload; the "greeting" parameter changes what it says.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

static char *greeting = "hello";
module_param(greeting, charp, 0444);
MODULE_PARM_DESC(greeting, "word printed on load and unload");

static int __init saakm_hello_init(void)
{
	pr_info("saakm_hello: %s, loaded\n", greeting);
	return 0;
}

static void __exit saakm_hello_exit(void)
{
	pr_info("saakm_hello: %s, unloaded\n", greeting);
}

module_init(saakm_hello_init);
module_exit(saakm_hello_exit);
MODULE_DESCRIPTION("SaaKM pipeline test: trivial module");
MODULE_LICENSE("GPL");
