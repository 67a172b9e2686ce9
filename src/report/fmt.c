/* fmt.c — numbers and sizes as every format writes them (report.h): a size
 * in B, KiB or MiB (or the family's own unit), a JSON number (null for NaN
 * and infinities). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"

const char *cb_fmt_size(uint64_t size, const char *unit, char *buf, size_t len)
{
    if (unit && strcmp(unit, "B") != 0)
        snprintf(buf, len, "%" PRIu64 " %s", size, unit);
    else if (size >= (1u << 20) && size % (1u << 20) == 0)
        snprintf(buf, len, "%" PRIu64 " MiB", size >> 20);
    else if (size >= 1024 && size % 1024 == 0)
        snprintf(buf, len, "%" PRIu64 " KiB", size >> 10);
    else
        snprintf(buf, len, "%" PRIu64 " B", size);
    return buf;
}

void cb_json_num(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", out);
    else
        fprintf(out, "%.10g", v);
}

void cb_json_num6(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", out);
    else
        fprintf(out, "%.6g", v);
}
