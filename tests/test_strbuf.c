/* test_strbuf.c — the growable string (src/util/strbuf.h): it holds what is
 * added, however long, always as a C string; a fixed buffer it is copied
 * into says when it had to cut; a failed allocation is remembered, not
 * lost in silence. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "tap.h"

int main(void)
{
    struct cb_sb sb = CB_SB_INIT;
    is_str(sb.buf, "", "a new buffer is the empty string");
    is_int(sb.len, 0, "... of length 0");
    cb_sb_adds(&sb, "cyclebudget");
    cb_sb_addc(&sb, ':');
    cb_sb_addf(&sb, " %d%% of %s", 42, "the budget");
    is_str(sb.buf, "cyclebudget: 42% of the budget", "adds, a char and a format, in order");
    is_int(sb.len, strlen(sb.buf), "len is the string's length");

    /* Longer than any fixed buffer it replaces: 10,000 names, joined. */
    cb_sb_reset(&sb);
    is_str(sb.buf, "", "reset empties it");
    static const char *const names[] = {"csum", "copy", "memset"};
    size_t want = 0;
    for (int i = 0; i < 10000; i++) {
        if (i)
            cb_sb_adds(&sb, ", ");
        cb_sb_join(&sb, names, 3, "/");
        want += (i ? 2 : 0) + strlen("csum/copy/memset");
    }
    is_int(sb.len, want, "10,000 joined items: every byte kept (%zu)", want);
    ok(strncmp(sb.buf, "csum/copy/memset, csum/copy/memset", 34) == 0, "joined with the separator");
    ok(strcmp(sb.buf + sb.len - 18, ", csum/copy/memset") == 0, "the last item is there");
    is_int(cb_sb_error(&sb), 0, "no allocation failed");

    /* A format longer than the growth step. */
    cb_sb_reset(&sb);
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cb_sb_addf(&sb, "<%s>", big);
    ok(sb.len == 5001 && sb.buf[0] == '<' && sb.buf[5000] == '>' && sb.buf[5001] == '\0',
       "a 5,001-byte format in one add");

    char small[8];
    is_int(cb_sb_copy(&sb, small, sizeof small), -ENOSPC, "copying into 8 bytes says it was cut");
    is_str(small, "<xxx...", "... and the copy ends in '...'");
    struct cb_sb s2 = CB_SB_INIT;
    cb_sb_adds(&s2, "fits");
    is_int(cb_sb_copy(&s2, small, sizeof small), 0, "a short one copies whole");
    is_str(small, "fits", "... as it was");

    char *own = cb_sb_detach(&s2);
    is_str(own, "fits", "detach hands over the string");
    is_str(s2.buf, "", "... and leaves the buffer empty");
    free(own);
    own = cb_sb_detach(&s2);
    ok(own && !*own, "detaching an empty buffer gives an empty string to free");
    free(own);

    /* An allocation that cannot succeed is remembered, and nothing after it
     * is added (the string stays what it was, not a cut version). */
    cb_sb_reset(&sb);
    cb_sb_adds(&sb, "kept");
    is_int(cb_sb_grow(&sb, (size_t)-1 / 2), -ENOMEM, "a huge grow fails with -ENOMEM");
    cb_sb_adds(&sb, " dropped");
    is_str(sb.buf, "kept", "what was there stays, later adds are dropped");
    is_int(cb_sb_error(&sb), -ENOMEM, "cb_sb_error says so");
    ok(cb_sb_detach(&sb) == NULL, "detach after a failure gives NULL, not a cut string");

    cb_sb_release(&sb);
    cb_sb_release(&s2);
    is_str(sb.buf, "", "released: the empty string again");
    return tap_done();
}
