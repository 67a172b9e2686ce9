/* budget_opts.h — the options that choose what a figure is charged against,
 * one group for run, report, race and budget: --link, --frame,
 * --context and --fpu-batch, parsed alike everywhere. */
#ifndef CB_BUDGET_OPTS_H
#define CB_BUDGET_OPTS_H

#include "util/strbuf.h"

#include <stddef.h>

#include "analysis/budget.h"
#include "cli/options.h"

/* The group's ids, clear of a command's own and of the session's. */
#define CB_BUDGET_OPT_FIRST (CB_OPT_LONG_ONLY + 200)

struct cb_budget_opts {
    const char *link;          /* --link: a rate ("10G") or cycles ("201"); NULL: not given */
    const char *context_arg;   /* --context: "user" or "kernel"; NULL: user */
    long frame;                /* --frame, bytes incl. header and FCS */
    long fpu_batch;            /* --fpu-batch: calls per kernel entry; 0 not given */
    /* Set by cb_budget_opts_finish: */
    struct cb_budget budget;
    enum cb_context context;
};

extern const struct cb_opt_group cb_budget_options;

/* Defaults: no link, the 64-byte frame, user space. */
void cb_budget_opts_init(struct cb_budget_opts *o);
/* After parsing: the budget from --link, or else fallback (a command's own
 * --budget, or "10G"), at --frame; the context.  0, or -EINVAL with err. */
int cb_budget_opts_finish(struct cb_budget_opts *o, const char *fallback, struct cb_sb *err);

struct cb_report;
/* Charge r as the options say: its budget, context and FPU batch. */
void cb_budget_opts_apply(const struct cb_budget_opts *o, struct cb_report *r);

#endif
