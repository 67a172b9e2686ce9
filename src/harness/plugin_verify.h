/* plugin_verify.h — a plugin variant checked at page edges.
 *
 * The families' own verifiers take their buffers from malloc, so where a
 * buffer ends relative to a page changes from run to run: a plugin whose
 * tail is wrong only when it crosses or meets a page end was caught in some
 * runs and passed in others, and one that reads a few bytes past the end
 * (masking them off, the kernel's load_unaligned_zeropad habit without its
 * exception fixup) always passed.  This check places every buffer, for each
 * length and start alignment the family's verifier tries, against a
 * PROT_NONE guard page (ending within a cache line of it, exactly at it for
 * one alignment of each length), right after a guard page, and in the last
 * cache line of a page: the same addresses relative to pages in every run.
 * A fault is caught here and reported as a wrong input, so the verdict says
 * the length and alignment.  Run it only in the verification child: it
 * installs SIGSEGV/SIGBUS handlers for its duration. */
#ifndef CB_PLUGIN_VERIFY_H
#define CB_PLUGIN_VERIFY_H

#include <stdint.h>

#include "harness/probe.h"

/* v is called as call says (its family's cb_probe.call), which also says
 * the buffers it reads and writes and whether its result is a checksum.
 * Fills *out (ok 1 when every placement matched the reference); returns 0
 * when it ran, -EINVAL for CB_CALL_NONE, -ENOMEM. */
int cb_plugin_verify_paged(enum cb_call call, const struct cb_variant *v, struct cb_verdict *out);

/* The same at one length, len, which a run times and the families' set
 * lacks: every size timed is a size verified.  As cb_plugin_verify_paged;
 * -ENOMEM also when len's buffers cannot be mapped. */
int cb_plugin_verify_len(enum cb_call call, const struct cb_variant *v, size_t len,
                         struct cb_verdict *out);

/* 1 when len is one of the lengths cb_plugin_verify_paged tries. */
int cb_plugin_verify_covers(uint64_t len);

#endif
