/* emulation.c — is this CPU emulated (see emulation.h for the rules). */
#define _GNU_SOURCE
#include "host/emulation.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

/* The value of a /proc/cpuinfo field ("key<tabs/spaces>: value") in its
 * first processor block, copied to out; 1 found, 0 not.  The key must start
 * a line: "flags" must not match "vmx flags". */
static int field(const char *text, const char *key, char *out, size_t len)
{
    size_t k = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (*p == '\n')
            return 0;        /* a blank line ends the first processor's block */
        if (strncmp(p, key, k) != 0)
            continue;
        const char *q = p + k;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q != ':')
            continue;
        for (q++; *q == ' ' || *q == '\t'; q++)
            ;
        size_t n = strcspn(q, "\n");
        if (out && len) {
            if (n >= len)
                n = len - 1;
            memcpy(out, q, n);
            out[n] = 0;
        }
        return 1;
    }
    return 0;
}

static int detect_aarch64(const struct cb_emulation_inputs *in, struct cb_sb *why)
{
    char v[64];
    int x86 = in->cpuinfo && (field(in->cpuinfo, "vendor_id", v, sizeof v) ||
                              field(in->cpuinfo, "flags", NULL, 0));
    if (in->cpuinfo && !field(in->cpuinfo, "CPU implementer", NULL, 0) && x86) {
        cb_sb_setf(why, "qemu-user: /proc/cpuinfo is an x86 host's (vendor_id %s) while this binary "
            "is aarch64", field(in->cpuinfo, "vendor_id", v, sizeof v) ? v : "unknown");
        return 1;
    }
    unsigned long long midr = in->midr;
    int have = in->have_midr;
    /* Without MIDR_EL1 itself, the kernel's copy of its implementer field. */
    if (!have && in->cpuinfo && field(in->cpuinfo, "CPU implementer", v, sizeof v)) {
        char *end;
        unsigned long imp = strtoul(v, &end, 0);
        if (end != v && imp <= 0xff) {
            midr = (unsigned long long)imp << 24;
            have = 2;
        }
    }
    if (have && ((midr >> 24) & 0xff) == 0) {
        if (have == 1)
            cb_sb_setf(why, "emulator: MIDR_EL1 0x%08llx has implementer 0x00, reserved for "
                "software use (qemu's max CPU reads 0x000f0510)", midr);
        else
            cb_sb_setf(why, "emulator: /proc/cpuinfo's CPU implementer is 0x00, reserved for "
                "software use (qemu's max CPU)");
        return 1;
    }
    return 0;
}

static int detect_x86_64(const struct cb_emulation_inputs *in, struct cb_sb *why)
{
    if (in->hv_vendor && strncmp(in->hv_vendor, "TCGTCGTCGTCG", 12) == 0) {
        cb_sb_setf(why, "qemu TCG: cpuid's hypervisor vendor is TCGTCGTCGTCG, qemu's binary "
            "translator");
        return 1;
    }
    char v[64];
    if (in->cpuinfo && field(in->cpuinfo, "CPU implementer", v, sizeof v) &&
        !field(in->cpuinfo, "vendor_id", NULL, 0)) {
        cb_sb_setf(why, "qemu-user: /proc/cpuinfo is an Arm host's (CPU implementer %s) while this "
            "binary is x86_64", v);
        return 1;
    }
    return 0;
}

int cb_emulation_detect(const struct cb_emulation_inputs *in, struct cb_sb *why)
{
    if (why)
        cb_sb_reset(why);
    if (!in)
        return -EINVAL;
    if (in->env && in->env[0]) {
        if (strcmp(in->env, "0") == 0)
            return 0;
        cb_sb_setf(why, CB_EMULATED_ENV "=%s", in->env);
        return 1;
    }
    if (in->arch && strcmp(in->arch, "aarch64") == 0)
        return detect_aarch64(in, why);
    if (in->arch && strcmp(in->arch, "x86_64") == 0)
        return detect_x86_64(in, why);
    return 0;
}

/* The first processor's block is all the rules read: a few KiB, where the
 * whole file of a big machine is hundreds. */
static void read_cpuinfo(char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
}

int cb_emulation_live(struct cb_sb *why)
{
    static char info[16384];
    read_cpuinfo(info, sizeof info);
    struct cb_emulation_inputs in = {.env = getenv(CB_EMULATED_ENV),
                                     .cpuinfo = info[0] ? info : NULL};
#if defined(__x86_64__)
    char hv[13] = "";
    unsigned a, b, c, d;
    /* Leaf 0x40000000 means something only with the hypervisor bit set. */
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31))) {
        __cpuid(0x40000000, a, b, c, d);
        memcpy(hv, &b, 4);
        memcpy(hv + 4, &c, 4);
        memcpy(hv + 8, &d, 4);
    }
    in.arch = "x86_64";
    in.hv_vendor = hv;
#elif defined(__aarch64__)
    in.arch = "aarch64";
#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1 << 11)
#endif
    /* EL0 reads MIDR_EL1 only where the kernel traps and emulates it. */
    if (getauxval(AT_HWCAP) & HWCAP_CPUID) {
        uint64_t midr;
        __asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
        in.midr = midr;
        in.have_midr = 1;
    }
#endif
    return cb_emulation_detect(&in, why);
}
