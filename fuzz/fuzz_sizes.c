/* fuzz_sizes.c — size lists (--sizes, --cold-bytes): cb_parse_size_list and
 * cb_parse_size.  A success must give 1..16 GiB per entry and agree with
 * parsing each comma-separated token alone. */
#include "fuzz.h"
#include "cli/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = cb_fuzz_str(data, size);
    uint64_t v[8], one;
    struct cb_sb err = CB_SB_INIT;
    int n = cb_parse_size_list(s, v, 8, &err);
    if (n < 0) {
        cb_fuzz_check_msg(&err);
    } else {
        if (n < 1 || n > 8)
            cb_fuzz_fail("count %d out of 1..8", n);
        const char *p = s;
        for (int i = 0; i < n; i++) {
            if (v[i] < 1 || v[i] > CB_SIZE_MAX_BYTES)
                cb_fuzz_fail("size %llu out of range", (unsigned long long)v[i]);
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            char tok[64];
            if (len >= sizeof tok)
                cb_fuzz_fail("accepted a %zu-byte token", len);
            memcpy(tok, p, len);
            tok[len] = '\0';
            if (cb_parse_size(tok, &one, &err) < 0 || one != v[i])
                cb_fuzz_fail("list and single parse disagree on '%s'", tok);
            p = c ? c + 1 : p + len;
        }
        if (*p)
            cb_fuzz_fail("accepted with text left over: '%s'", p);
    }
    cb_sb_reset(&err);
    if (cb_parse_size(s, &one, &err) < 0)
        cb_fuzz_check_msg(&err);
    else if (one < 1 || one > CB_SIZE_MAX_BYTES)
        cb_fuzz_fail("size %llu out of range", (unsigned long long)one);
    free(s);
    cb_sb_release(&err);
    return 0;
}
