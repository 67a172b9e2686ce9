/* machine.c — a machine's short name (see machine.h). */
#define _GNU_SOURCE
#include "host/machine.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* FNV-1a, 32 bits: a name for people to type, not a defence. */
static void fnv(uint32_t *h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ (unsigned char)s[i]) * 16777619u;
}

void cb_machine_id(const char *hostname, const char *vendor, int family, int model, int stepping,
                   const char *model_name, char *out)
{
    char nums[64];
    int n = snprintf(nums, sizeof nums, "%d/%d/%d", family, model, stepping);
    uint32_t h = 2166136261u;
    /* Each field ends in a NUL, so that "ab"+"c" and "a"+"bc" differ. */
    const char *const f[] = {hostname ? hostname : "", vendor ? vendor : "", nums,
                             model_name ? model_name : ""};
    for (int i = 0; i < 4; i++)
        fnv(&h, f[i], (i == 2 ? (size_t)n : strlen(f[i])) + 1);
    snprintf(out, CB_MACHINE_ID_LEN + 1, "%08x", (unsigned)h);
}

int cb_machine_match(const char *spec, const char *id, const char *hostname)
{
    size_t n = strlen(spec);
    if (n >= 4 && n <= CB_MACHINE_ID_LEN && strspn(spec, "0123456789abcdef") == n &&
        strncmp(spec, id, n) == 0)
        return 1;
    return fnmatch(spec, hostname, 0) == 0;
}
