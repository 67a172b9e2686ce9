/* budget_opts.c — --link, --frame, --context, --fpu-batch (budget_opts.h). */
#include "cli/budget_opts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/parse.h"
#include "report/report.h"

enum { OPT_FRAME = CB_BUDGET_OPT_FIRST, OPT_FPU_BATCH };

static int budget_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct cb_budget_opts *o = ctx;
    switch (id) {
    case OPT_FRAME:
        return cb_parse_long(arg, CB_MIN_FRAME, CB_MAX_FRAME, "--frame", &o->frame, err) < 0
                   ? -EINVAL : 0;
    case OPT_FPU_BATCH:
        return cb_parse_long(arg, 1, 1000000, "--fpu-batch", &o->fpu_batch, err) < 0 ? -EINVAL : 0;
    default:
        return 1;
    }
}

static const struct cb_option budget_table[] = {
    CB_OPT_STR(0, "link", struct cb_budget_opts, link, "L",
               "the budget: a link rate (10G, 25G, 40G, 100G, 400G) or cycles per packet "
               "(default: 10G; budget's table without --path: every rate)"),
    CB_OPT_CALL(OPT_FRAME, "frame", "BYTES",
                "the frame a per-packet operation is charged to, incl. header and FCS (default: "
                "64, the minimum; an operation over more bytes is charged to the frame that "
                "carries them)"),
    CB_OPT_STR(0, "context", struct cb_budget_opts, context_arg, "C",
               "user (default) or kernel: in the kernel a SIMD variant also pays "
               "kernel_fpu_begin/end and the +kflags builds stand for the kernel's code"),
    /* The default is CB_FPU_BATCH_DEFAULT (fpu.h) for the kernel section. */
    CB_OPT_CALL(OPT_FPU_BATCH, "fpu-batch", "N",
                "calls of a SIMD variant per kernel entry sharing one kernel_fpu_begin save "
                "(kernel context: default a first use; the report's kernel section: 16)"),
    CB_OPT_END,
};

const struct cb_opt_group cb_budget_options = {budget_table, budget_option};

void cb_budget_opts_init(struct cb_budget_opts *o)
{
    memset(o, 0, sizeof *o);
    o->frame = CB_MIN_FRAME;
}

int cb_budget_opts_finish(struct cb_budget_opts *o, const char *fallback, struct cb_sb *err)
{
    const char *l = o->link ? o->link : fallback ? fallback : "10G";
    if (cb_budget_parse(l, (unsigned)o->frame, &o->budget, err) < 0)
        return -EINVAL;
    o->context = CB_CONTEXT_USER;
    return o->context_arg ? cb_context_parse(o->context_arg, &o->context, err) : 0;
}

void cb_budget_opts_apply(const struct cb_budget_opts *o, struct cb_report *r)
{
    r->budget = o->budget;
    r->context = o->context;
    if (o->fpu_batch > 0) {
        r->fpu_batch = (int)o->fpu_batch;
        r->kernel_batch = (int)o->fpu_batch;
    }
}
