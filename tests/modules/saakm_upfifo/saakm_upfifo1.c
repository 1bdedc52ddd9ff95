// SPDX-License-Identifier: GPL-2.0
/* Version 1 of the upfifo test policy: 20 ms slices. See upfifo.h. */
#define UPFIFO_VERSION	1
#define UPFIFO_SLICE_MS	20
#include "upfifo.h"
