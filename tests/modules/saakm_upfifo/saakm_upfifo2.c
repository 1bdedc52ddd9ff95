// SPDX-License-Identifier: GPL-2.0
/* Version 2 of the upfifo test policy: 5 ms slices. See upfifo.h. */
#define UPFIFO_VERSION	2
#define UPFIFO_SLICE_MS	5
#include "upfifo.h"
