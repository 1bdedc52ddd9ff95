/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/module.h> (policy subset): module_init()/module_exit()
 * register the functions that usim_load()/usim_unload() call; the
 * MODULE_*() tags are accepted and dropped. THIS_MODULE names the object
 * (its source file), so that two versions of a policy linked together are
 * two modules.
 * EXPORT_SYMBOL*() are declarations (the kernel's saakm_rq.c uses them).
 */
#ifndef USIM_SHIM_MODULE_H
#define USIM_SHIM_MODULE_H

#include <usim/kapi.h>
#include <linux/moduleparam.h>

struct module;
/* One object, one module: a test may link two versions of a policy. */
#define THIS_MODULE ((struct module *)__BASE_FILE__)

/* Kbuild names each object's module; a policy built here is "policy". */
#ifndef KBUILD_MODNAME
#define KBUILD_MODNAME "policy"
#endif

void usim_register_module(const char *file, int (*init)(void), void (*exit)(void));

#define module_init(fn)							\
	static void __attribute__((constructor)) __usim_module_init(void)	\
	{								\
		usim_register_module(__BASE_FILE__, (fn), NULL);			\
	}
#define module_exit(fn)							\
	static void __attribute__((constructor)) __usim_module_exit(void)	\
	{								\
		usim_register_module(__BASE_FILE__, NULL, (fn));			\
	}

/* Exports are the kernel's business: a declaration, so the line stays valid C. */
#define EXPORT_SYMBOL(sym)		extern __typeof__(sym) sym
#define EXPORT_SYMBOL_GPL(sym)		extern __typeof__(sym) sym
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	extern __typeof__(sym) sym

#define MODULE_LICENSE(x)	struct __usim_module_tag
#define MODULE_DESCRIPTION(x)	struct __usim_module_tag
#define MODULE_AUTHOR(x)	struct __usim_module_tag
#define MODULE_VERSION(x)	struct __usim_module_tag
#define MODULE_ALIAS(x)		struct __usim_module_tag
#define MODULE_INFO(tag, x)	struct __usim_module_tag
#define MODULE_IMPORT_NS(x)	struct __usim_module_tag

#endif /* USIM_SHIM_MODULE_H */
