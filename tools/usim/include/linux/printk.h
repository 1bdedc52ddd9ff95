/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/printk.h> (policy subset): printk and pr_*() go to the
 * simulation's log (stderr, or nowhere with usim_set_quiet()). snprintf()
 * and scnprintf() are the C library's (usim/kapi.h).
 */
#ifndef USIM_SHIM_PRINTK_H
#define USIM_SHIM_PRINTK_H

#include <usim/kapi.h>

#define KERN_SOH	"\001"
#define KERN_EMERG	KERN_SOH "0"
#define KERN_ALERT	KERN_SOH "1"
#define KERN_CRIT	KERN_SOH "2"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARNING	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"
#define KERN_CONT	KERN_SOH "c"

int usim_printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define printk(fmt, ...)		usim_printk(fmt, ##__VA_ARGS__)
#define printk_deferred(fmt, ...)	usim_printk(fmt, ##__VA_ARGS__)
#define pr_emerg(fmt, ...)	usim_printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	usim_printk(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)	usim_printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)	usim_printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	usim_printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...)	usim_printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	usim_printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...)	usim_printk(KERN_CONT fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	do { if (0) usim_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__); } while (0)
#define pr_err_ratelimited	pr_err
#define pr_warn_ratelimited	pr_warn
#define pr_info_ratelimited	pr_info
#define pr_err_once		pr_err
#define pr_warn_once		pr_warn
#define pr_info_once		pr_info

#endif /* USIM_SHIM_PRINTK_H */
