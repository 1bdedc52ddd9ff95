/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/moduleparam.h> (policy subset): module_param() registers
 * the variable with the runtime at program start, so that the driver can
 * set it (usim_set_params("slice_ms=5 steal=Y")) before module_init runs.
 * The variable's C type must match the parameter type, as the kernel's
 * param_check_*() demands.
 *
 * module_param_cb() parameters go through their struct kernel_param_ops:
 * .set at load (usim_set_params(); an error fails the load, as insmod
 * fails) and at run time (usim_param_write(), the sysfs write), .get when
 * read (usim_get_params(), usim_param_read()). param_set_uint() and
 * friends, param_ops_uint and kstrtouint() and friends are the kernel's,
 * re-implemented with the same parsing (base 0, trailing newline allowed).
 */
#ifndef USIM_SHIM_MODULEPARAM_H
#define USIM_SHIM_MODULEPARAM_H

#include <usim/kapi.h>

enum usim_param_type {
	usim_param_type_bool,
	usim_param_type_invbool,
	usim_param_type_byte,
	usim_param_type_short,
	usim_param_type_ushort,
	usim_param_type_int,
	usim_param_type_uint,
	usim_param_type_long,
	usim_param_type_ulong,
	usim_param_type_ullong,
	usim_param_type_charp,
	usim_param_type_cb,	/* module_param_cb(): through its ops */
};

typedef bool usim_param_ctype_bool;
typedef bool usim_param_ctype_invbool;
typedef unsigned char usim_param_ctype_byte;
typedef short usim_param_ctype_short;
typedef unsigned short usim_param_ctype_ushort;
typedef int usim_param_ctype_int;
typedef unsigned int usim_param_ctype_uint;
typedef long usim_param_ctype_long;
typedef unsigned long usim_param_ctype_ulong;
typedef unsigned long long usim_param_ctype_ullong;
typedef char *usim_param_ctype_charp;

void usim_register_param(const char *name, void *addr, enum usim_param_type type);

/* The type is pasted at once: "bool" is also a macro (stdbool.h). */
#define __usim_module_param(name, value, ctype, ptype, perm, tname)		\
	_Static_assert(__builtin_types_compatible_p(__typeof__(value), ctype),	\
		       "module_param " #name ": variable is not of type " tname); \
	static void __attribute__((constructor)) __usim_param_##name(void)	\
	{									\
		usim_register_param(#name, &(value), ptype);			\
	}									\
	static const int __usim_param_perm_##name __attribute__((unused)) = (perm)

#define module_param_named(name, value, type, perm) \
	__usim_module_param(name, value, usim_param_ctype_##type, usim_param_type_##type, perm, #type)
#define module_param(name, type, perm) \
	__usim_module_param(name, name, usim_param_ctype_##type, usim_param_type_##type, perm, #type)
struct kernel_param;
struct module;

/**
 * struct kernel_param_ops - how a module_param_cb() parameter is read and
 * written
 * @flags: KERNEL_PARAM_OPS_FL_NOARG or 0
 * @set: parse @val into the parameter; 0 or a negative errno (refused)
 * @get: write the value as text into @buffer; the length written
 * @free: release what @set allocated (charp)
 */
struct kernel_param_ops {
	unsigned int flags;
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
	void (*free)(void *arg);
};

#define KERNEL_PARAM_OPS_FL_NOARG	(1 << 0)

/* struct kernel_param: the part a .set/.get sees (name, arg). */
struct kernel_param {
	const char *name;
	struct module *mod;
	const struct kernel_param_ops *ops;
	const u16 perm;
	s8 level;
	u8 flags;
	union {
		void *arg;
	};
};

void usim_register_param_cb(const struct kernel_param *kp);

#define module_param_cb(name_, ops_, arg_, perm_)				\
	static const struct kernel_param __usim_kp_##name_ = {			\
		.name = #name_, .ops = (ops_), .perm = (perm_), .arg = (arg_),	\
	};									\
	static void __attribute__((constructor)) __usim_param_##name_(void)	\
	{									\
		usim_register_param_cb(&__usim_kp_##name_);			\
	}

/* The standard ops and their functions, as in kernel/params.c. */
#define __USIM_STD_PARAM(type)							\
	int param_set_##type(const char *val, const struct kernel_param *kp);	\
	int param_get_##type(char *buffer, const struct kernel_param *kp);	\
	extern const struct kernel_param_ops param_ops_##type
__USIM_STD_PARAM(byte);
__USIM_STD_PARAM(short);
__USIM_STD_PARAM(ushort);
__USIM_STD_PARAM(int);
__USIM_STD_PARAM(uint);
__USIM_STD_PARAM(long);
__USIM_STD_PARAM(ulong);
__USIM_STD_PARAM(ullong);
__USIM_STD_PARAM(bool);
__USIM_STD_PARAM(invbool);
__USIM_STD_PARAM(charp);
#undef __USIM_STD_PARAM
int param_set_uint_minmax(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max);

/* <linux/kstrtox.h>, which the kernel's moduleparam.h brings in. */
int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtoll(const char *s, unsigned int base, long long *res);
int kstrtoul(const char *s, unsigned int base, unsigned long *res);
int kstrtol(const char *s, unsigned int base, long *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtou64(const char *s, unsigned int base, u64 *res);
int kstrtos64(const char *s, unsigned int base, s64 *res);
int kstrtobool(const char *s, bool *res);

#define MODULE_PARM_DESC(name, desc) \
	static const char __usim_parm_desc_##name[] __attribute__((unused)) = desc

#endif /* USIM_SHIM_MODULEPARAM_H */
