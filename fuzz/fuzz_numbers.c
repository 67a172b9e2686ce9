/* fuzz_numbers.c — integer and seconds options (--reps, --cpu, --frame,
 * --max-time): cb_parse_long and cb_parse_seconds.  The first byte picks the
 * range, the rest is the text.  A success must lie in the range asked for. */
#include <math.h>

#include "fuzz.h"
#include "cli/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const long ranges[][2] = {
        {1, 1000000}, {0, 65535}, {64, 16384}, {-5, 5}, {0, 0}, {-2147483647L, 2147483647L},
    };
    if (size < 1)
        return 0;
    const long *r = ranges[data[0] % (sizeof ranges / sizeof ranges[0])];
    char *s = cb_fuzz_str(data + 1, size - 1);
    struct cb_sb err = CB_SB_INIT;
    long v;
    if (cb_parse_long(s, r[0], r[1], "--fuzz", &v, &err) < 0)
        cb_fuzz_check_msg(&err);
    else if (v < r[0] || v > r[1])
        cb_fuzz_fail("%ld outside %ld..%ld", v, r[0], r[1]);
    double d;
    cb_sb_reset(&err);
    if (cb_parse_seconds(s, "--fuzz", &d, &err) < 0)
        cb_fuzz_check_msg(&err);
    else if (!isfinite(d) || d <= 0 || d > 86400)
        cb_fuzz_fail("seconds %g accepted", d);
    free(s);
    cb_sb_release(&err);
    return 0;
}
