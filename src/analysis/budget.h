/* budget.h — the per-packet cycle budget.
 *
 * A 64-byte frame occupies 84 bytes of wire time (plus 8 bytes preamble and
 * start delimiter, 12 bytes inter-frame gap), so 10 Gbit/s carries 14.88 Mpps:
 * one packet every 67.2 ns, 201.6 cycles at 3 GHz (the 2016 TXDP thread). */
#ifndef CB_BUDGET_H
#define CB_BUDGET_H

#include <stddef.h>

#define CB_WIRE_OVERHEAD 20   /* preamble + SFD (8) + inter-frame gap (12) */
#define CB_MIN_FRAME 64

struct cb_budget {
    double gbps;              /* link rate; 0 when given directly in cycles */
    unsigned frame;           /* frame bytes incl. FCS */
    double cycles;            /* > 0 when given directly in cycles */
    char label[48];           /* "10G/64B" or "201 cycles" */
};

double cb_budget_pps(double gbps, unsigned frame);
double cb_budget_ns(double gbps, unsigned frame);
/* Cycles per packet at core_ghz (for a cycles budget: the cycles). */
double cb_budget_cycles(const struct cb_budget *b, double core_ghz);

/* Parse a link ("10G", "2.5g", "100G", "400Gbit") or a cycle count ("201",
 * "201c", "201cycles").  frame is used for links.  Returns 0, or -EINVAL with
 * a message in err. */
int cb_budget_parse(const char *s, unsigned frame, struct cb_budget *b, char *err, size_t errlen);

#endif
