/* plugin_code.c — a variant's code as loaded: its identity apart from its
 * place (codehash.h), and a plugin loaded again at other addresses (ab's
 * copies).  Beside plugin.c, which owns the families these look into. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/collect.h"
#include "harness/plugin.h"
#include "host/sha256.h"

int cb_plugin_load_copy(const char *path, const char *ns, struct cb_sb *err)
{
    const char *dir = getenv("TMPDIR");
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/cyclebudget-ab-XXXXXX", dir && *dir ? dir : "/tmp");
    int out = mkstemp(tmp), rc = 0;
    FILE *in = out >= 0 ? fopen(path, "rb") : NULL;
    if (!in) {
        cb_sb_setf(err, "cannot copy plugin %s to load it again: %s", path, strerror(errno));
        rc = -EIO;
    }
    char buf[65536];
    size_t n;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (write(out, buf, n) != (ssize_t)n) {
            cb_sb_setf(err, "cannot copy plugin %s: %s", path, strerror(errno));
            rc = -EIO;
        }
    if (in)
        fclose(in);
    if (out >= 0 && close(out) < 0 && rc == 0) {
        cb_sb_setf(err, "cannot copy plugin %s: %s", path, strerror(errno));
        rc = -EIO;
    }
    struct cb_plugin_info info;
    if (rc == 0)
        rc = cb_plugin_load_ns(tmp, ns, &info, err);
    /* The mapping outlives the name: nothing is left behind. */
    if (out >= 0)
        unlink(tmp);
    return rc;
}

int cb_variant_code_id(const struct cb_probe *p, const struct cb_variant *v,
                       char hash[CB_CODE_HASH_LEN + 1], unsigned *addr)
{
    const void *roots[3];
    size_t n = 0;
    hash[0] = '\0';
    *addr = 0;
    if (!v->fn)
        return -ENOTSUP;
    /* The timed loop first: it calls the variant through a pointer, which
     * is allowed there only (cb_code_hash's allow_icall). */
    *(void (**)(struct cb_case *, uint64_t))&roots[n++] = p->run;
    const void *call;
    if (cb_plugin_code_roots(p, v, &call) < 0)
        return -ENOTSUP;
    if (call)
        roots[n++] = call;
    roots[n++] = v->fn;
    *addr = (unsigned)((uintptr_t)v->fn & 4095);
    return cb_code_hash(roots, n, n - 1, hash);
}

void cb_code_id_of(const struct cb_fake *fake, const struct cb_probe *p, const struct cb_variant *v,
                   const char *side, char hash[CB_CODE_HASH_LEN + 1], unsigned *addr)
{
    if (cb_variant_code_id(p, v, hash, addr) < 0 || !fake)
        return;
    /* The fake clock's planted factors change what a case costs as a code
     * change would (the verdict tests and benchmarks plant changes so):
     * they are part of the code's identity, its seed and noise are not. */
    double f = fake->scale * (side && strcmp(side, "head") == 0 ? fake->head : 1);
    struct cb_sha256 s;
    char hex[65];
    cb_sha256_init(&s);
    cb_sha256_update(&s, hash, CB_CODE_HASH_LEN);
    cb_sha256_update(&s, &f, sizeof f);
    cb_sha256_hex(&s, hex);
    memcpy(hash, hex, CB_CODE_HASH_LEN);
    hash[CB_CODE_HASH_LEN] = '\0';
}
