/* fuzz.h — what every libFuzzer target here shares.
 *
 * The targets are built two ways: with clang's -fsanitize=fuzzer when
 * configured with --enable-fuzzing, and otherwise linked with replay.c so
 * make check runs them over the committed corpora (fuzz/corpus/TARGET/).
 * A broken invariant calls cb_fuzz_fail, which aborts: libFuzzer records the
 * input, replay.c's run fails the test. */
#ifndef CB_FUZZ_H
#define CB_FUZZ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a C string: parsers take what a shell passes, which cannot
 * hold a NUL, so the text stops at the first one.  Caller frees. */
static inline char *cb_fuzz_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#define cb_fuzz_fail(...) do { fprintf(stderr, "fuzz invariant: " __VA_ARGS__); \
    fputc('\n', stderr); abort(); } while (0)

/* A message for the user is one line, terminated, and not empty. */
static inline void cb_fuzz_check_msg(const struct cb_sb *err)
{
    if (strlen(err->buf) != err->len)
        cb_fuzz_fail("error message not terminated where its length says");
    if (err->len == 0)
        cb_fuzz_fail("a refusal without a message");
}

#endif
