/* kflags/flags.c — what the +kflags objects were built with. */
#include "config.h"
#include "probes/kflags/kflags.h"

const char cb_kernel_cflags[] = CB_KERNEL_CFLAGS;
