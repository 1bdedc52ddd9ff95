/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usim shim <uapi/linux/saakm.h>: the user ABI header in kernel/src/include/uapi
 * (made by the top-level Makefile from the kernel tree), where the
 * SAAKM_STATES() and SAAKM_EVENTS() lists are written once.
 */
#ifndef USIM_SHIM_UAPI_SAAKM_H
#define USIM_SHIM_UAPI_SAAKM_H
#include "../../../../../kernel/src/include/uapi/linux/saakm.h"
#endif
