/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <linux/moduleparam.h> (policy subset): module_param() registers
 * the variable with the runtime at program start, so that the driver can
 * set it (usim_set_params("slice_ms=5 steal=Y")) before module_init runs.
 * The variable's C type must match the parameter type, as the kernel's
 * param_check_*() demands.
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
#define MODULE_PARM_DESC(name, desc) \
	static const char __usim_parm_desc_##name[] __attribute__((unused)) = desc

#endif /* USIM_SHIM_MODULEPARAM_H */
