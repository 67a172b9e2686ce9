/* budget.c — link rate and frame size to packets/s, ns and cycles. */
#include "budget.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

double cb_budget_pps(double gbps, unsigned frame)
{
    return gbps * 1e9 / (8.0 * (double)(frame + CB_WIRE_OVERHEAD));
}

double cb_budget_ns(double gbps, unsigned frame)
{
    return 1e9 / cb_budget_pps(gbps, frame);
}

double cb_budget_cycles(const struct cb_budget *b, double core_ghz)
{
    if (b->cycles > 0)
        return b->cycles;
    return cb_budget_ns(b->gbps, b->frame) * core_ghz;
}

int cb_budget_parse(const char *s, unsigned frame, struct cb_budget *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    char *end;
    if (!s || !*s) {
        snprintf(err, errlen, "empty budget: give a link rate like 10G, 40G, 100G, or a cycle count like 201");
        return -EINVAL;
    }
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v <= 0 || v > 1e6) {
        snprintf(err, errlen, "budget '%s' is not a link rate or cycle count: use e.g. 10G, 40G, 100G, or 201", s);
        return -EINVAL;
    }
    if (strcasecmp(end, "g") == 0 || strcasecmp(end, "gbit") == 0 || strcasecmp(end, "gbps") == 0 ||
        strcasecmp(end, "gbit/s") == 0) {
        if (frame < CB_MIN_FRAME) {
            snprintf(err, errlen, "frame size %u is below Ethernet's 64-byte minimum", frame);
            return -EINVAL;
        }
        b->gbps = v;
        b->frame = frame;
        snprintf(b->label, sizeof b->label, "%gG/%uB", v, frame);
        return 0;
    }
    if (*end == '\0' || strcasecmp(end, "c") == 0 || strcasecmp(end, "cycles") == 0) {
        b->cycles = v;
        snprintf(b->label, sizeof b->label, "%g cycles", v);
        return 0;
    }
    snprintf(err, errlen, "budget '%s': unknown unit '%s': use G for a link rate (10G) or a plain cycle count (201)", s, end);
    return -EINVAL;
}
