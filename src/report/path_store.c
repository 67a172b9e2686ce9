/* path_store.c — a composed path kept with its run (db/0022_paths.sql), and
 * its series over runs for history (path.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "store/paths.h"
#include "report/path.h"

/* "label=variant:cycles;..." in the path's order, "label=-" for a step
 * not measured. */
static void detail_of(const struct cb_path_result *res, struct cb_sb *sb)
{
    for (size_t k = 0; k < res->nparts; k++) {
        const struct cb_path_part *pt = &res->parts[k];
        if (pt->c)
            cb_sb_addf(sb, "%s%s=%s:%.2f", k ? ";" : "", pt->step->label, pt->c->info.variant, pt->cyc);
        else
            cb_sb_addf(sb, "%s%s=-", k ? ";" : "", pt->step->label);
    }
}

int cb_path_store(struct cb_store *st, const struct cb_report *r, const struct cb_path *p,
                  const struct cb_path_result *res)
{
    struct cb_sb detail = CB_SB_INIT;
    detail_of(res, &detail);
    /* A path with a step missing has no total: its steps are kept, its
     * figures are NULL, and neither history nor compare reads one. */
    int some = res->missing == 0;
    struct cb_store_path_row row = {
        .run_id = r->run.id, .path = p->name, .size = (int64_t)res->size,
        .context = cb_context_name(r->context),
        .frame = r->budget.frame ? r->budget.frame : CB_MIN_FRAME,
        .charged_frame = res->charge.frame, .charged_frames = (int64_t)res->charge.frames,
        .cycles = some ? res->cyc : NAN, .cycles_lo = some ? res->lo : NAN,
        .cycles_hi = some ? res->hi : NAN, .ns = some ? res->ns : NAN,
        .steps = (int64_t)res->nparts, .missing = (int64_t)res->missing, .detail = detail.buf,
    };
    int rc = cb_store_path_put(st, &row);
    cb_sb_release(&detail);
    return rc;
}

/* history's table: its head before the first row. */
struct hist {
    FILE *out;
    const char *path, *ctx;
    uint64_t size;
    int n;
};

static int hist_row(const struct cb_store_path_row *row, void *ctx)
{
    struct hist *h = ctx;
    FILE *out = h->out;
    if (h->n++ == 0)
        fprintf(out, "path %s, %" PRIu64 "-byte packets, %s context: each run that stored it\n"
                     "  %6s %-24s %-14s %10s %21s  %s\n", h->path, h->size, h->ctx, "run",
                "started", "commit", "cycles", "interval", "steps (variant:cycles)");
    char iv[48], commit[24], cyc[24];
    int whole = row->missing == 0 && !isnan(row->cycles);
    snprintf(iv, sizeof iv, whole ? "[%.1f, %.1f]" : "-", row->cycles_lo, row->cycles_hi);
    snprintf(cyc, sizeof cyc, whole ? "%.1f" : "no total", row->cycles);
    snprintf(commit, sizeof commit, "%.12s%s", row->commit[0] ? row->commit : "-",
             row->dirty == 1 ? "+" : "");
    fprintf(out, "  %6" PRId64 " %-24.24s %-14s %10s %21s  ", row->run_id, row->started, commit,
            cyc, iv);
    cb_text_puts(out, row->detail);
    fprintf(out, "%s\n", whole ? "" : " (steps not measured: '-')");
    return 0;
}

int cb_path_history(struct cb_store *st, const char *path, uint64_t size, enum cb_context ctx, FILE *out)
{
    struct hist h = {out, path, cb_context_name(ctx), size, 0};
    if (cb_store_each_path_run(st, path, size, h.ctx, hist_row, &h) < 0)
        return -EIO;
    if (h.n == 0)
        fprintf(out, "no run stored path %s at %" PRIu64 " bytes in %s context ('cyclebudget run' "
                     "stores rx and fwd at 1500)\n",
                path, size, h.ctx);
    return h.n;
}
