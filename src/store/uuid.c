/* uuid.c — random UUIDs for runs (see uuid.h). */
#include "store/uuid.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

int cb_uuid_v4(char *buf, size_t len)
{
    if (len < CB_UUID_LEN + 1)
        return -ENOSPC;
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof b) {
        /* 16 bytes never return short once the pool is ready; EINTR can. */
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        got += (size_t)n;
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);   /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);   /* variant 10xx */
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buf[o++] = '-';
        buf[o++] = hex[b[i] >> 4];
        buf[o++] = hex[b[i] & 15];
    }
    buf[o] = '\0';
    return 0;
}

int cb_uuid_valid(const char *s)
{
    if (!s || strlen(s) != CB_UUID_LEN)
        return 0;
    for (int i = 0; i < CB_UUID_LEN; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]) || !s[i])
            return 0;
    }
    return 1;
}
