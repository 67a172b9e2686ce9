/* caseclock.c — bracketing a case's core clock (see caseclock.h). */
#include "harness/caseclock.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "harness/stats.h"

void cb_case_clock_side(const struct cb_backend *be, int imul, int side, double tsc_ghz,
                        struct cb_clock_side *out)
{
    double g[CB_CLOCK_ESTIMATES];
    size_t n = 0;
    for (int i = 0; i < CB_CLOCK_ESTIMATES; i++) {
        double r = be->core_per_tick(be->ctx, imul, side);
        if (r > 0 && isfinite(r))
            g[n++] = r * tsc_ghz;
    }
    out->ghz = 0;
    out->noise_pct = NAN;
    if (n == 0)
        return;
    cb_sort_doubles(g, n);
    out->ghz = cb_quantile_sorted(g, n, 0.5);
    out->noise_pct = (g[n - 1] - g[0]) / out->ghz * 100.0;
}

static double off_pct(double g, double ref)
{
    return (g / ref - 1.0) * 100.0;
}

int cb_case_clock_choose(double run_ghz, const struct cb_clock_side *before,
                         const struct cb_clock_side *after, struct cb_case_clock *out)
{
    memset(out, 0, sizeof *out);
    out->spread_pct = NAN;
    if (!(run_ghz > 0) || !isfinite(run_ghz))
        return -EINVAL;
    out->run_ghz = out->used_ghz = run_ghz;
    out->before = *before;
    out->after = *after;
    int hb = before->ghz > 0, ha = after->ghz > 0;
    if (!hb && !ha) {
        out->flagged = 1;
        return 0;
    }
    out->ghz = hb && ha ? (before->ghz + after->ghz) / 2 : hb ? before->ghz : after->ghz;
    double noise = CB_CLOCK_NOISE_FLOOR;
    if (hb && isfinite(before->noise_pct) && before->noise_pct > noise)
        noise = before->noise_pct;
    if (ha && isfinite(after->noise_pct) && after->noise_pct > noise)
        noise = after->noise_pct;
    double apart = hb && ha ? fabs(before->ghz - after->ghz) / out->ghz * 100.0 : 0;
    if (apart > noise)
        noise = apart;
    out->spread_pct = noise;
    double dev = fabs(off_pct(out->ghz, run_ghz));
    if (dev <= noise && dev <= CB_CLOCK_AGREE_MAX) {
        out->used_case = 1;
        out->used_ghz = out->ghz;
        return 0;
    }
    out->flagged = 1;
    /* Confirmed: each bracket on its own is off the run's clock by more
     * than the noise, on the same side, and the two agree with each other. */
    if (hb && ha && apart <= CB_CLOCK_CONFIRM) {
        double db = off_pct(before->ghz, run_ghz), da = off_pct(after->ghz, run_ghz);
        if (db * da > 0 && fabs(db) > noise && fabs(da) > noise) {
            out->used_case = 1;
            out->used_ghz = out->ghz;
        }
    }
    return 0;
}
