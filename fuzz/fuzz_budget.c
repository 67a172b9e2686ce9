/* fuzz_budget.c — budget specs (--budget 10G, 201, 100gbps) with a frame
 * size: cb_budget_parse.  The first two bytes are the frame.  A success must
 * give a finite, positive number of cycles at any sane clock. */
#include <math.h>

#include "analysis/budget.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned frame = (unsigned)data[0] << 8 | data[1];
    char *s = cb_fuzz_str(data + 2, size - 2);
    struct cb_sb err = CB_SB_INIT;
    struct cb_budget b;
    if (cb_budget_parse(s, frame, &b, &err) < 0) {
        cb_fuzz_check_msg(&err);
    } else {
        double c = cb_budget_cycles(&b, 3.0);
        if (!isfinite(c) || c <= 0)
            cb_fuzz_fail("budget '%s' frame %u gives %g cycles", s, frame, c);
        if (strnlen(b.label, sizeof b.label) == sizeof b.label)
            cb_fuzz_fail("label not terminated");
    }
    free(s);
    cb_sb_release(&err);
    return 0;
}
