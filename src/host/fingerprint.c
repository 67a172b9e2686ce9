/* fingerprint.c — the environment a run was measured in (see fingerprint.h). */
#define _GNU_SOURCE
#include "host/fingerprint.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/cpu.h"
#include "host/cpuclass.h"

#define FP_TIMING 1  /* changes timings, and not already in hosts/runs.cpu: compared */

static const struct field {
    const char *key;    /* in the stored string */
    const char *label;  /* in compare's "differ" text */
    size_t off, size;
    int flags;
} fields[] = {
#define F(k, label, fl) {#k, label, offsetof(struct cb_fingerprint, k), sizeof(((struct cb_fingerprint *)0)->k), fl}
    F(model, "cpu model name", 0),
    F(microcode, "microcode", 0),
    F(hypervisor, "hypervisor", FP_TIMING),
    F(smt_active, "smt active", FP_TIMING),
    F(smt_control, "smt control", 0),
    F(siblings, "core siblings", 0),
    F(governor, "governor", FP_TIMING),
    F(driver, "cpufreq driver", FP_TIMING),
    F(boost, "boost", FP_TIMING),
    F(paranoid, "perf_event_paranoid", 0),
    F(kernel, "kernel", 0),
    F(isolated, "isolated cpus", FP_TIMING),
    F(nohz_full, "nohz_full cpus", FP_TIMING),
    F(cpu, "pinned cpu", 0),
    F(core_type, "pinned cpu core type", 0),
    F(node, "pinned cpu numa node", 0),
#undef F
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static char *field_ptr(struct cb_fingerprint *fp, const struct field *f)
{
    return (char *)fp + f->off;
}

static const char *field_cptr(const struct cb_fingerprint *fp, const struct field *f)
{
    return (const char *)fp + f->off;
}

/* Copy with trailing whitespace cut and ';' or control characters made
 * spaces, so a value never breaks the key=value; form. */
static void put(char *dst, size_t size, const char *src, size_t n)
{
    while (n && isspace((unsigned char)src[n - 1]))
        n--;
    while (n && isspace((unsigned char)*src)) {
        src++;
        n--;
    }
    if (n >= size)
        n = size - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c == ';' || c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    dst[n] = '\0';
}

/* The first line of sysroot + path into out; 0, or -errno (out untouched). */
static int read_line(const char *sysroot, char *out, size_t size, const char *fmt, ...)
{
    char rel[256], path[768], buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s%s", sysroot, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = '\0';
    fclose(f);
    put(out, size, buf, strlen(buf));
    return 0;
}

/* A CPU list file where empty (or the kernel's "(null)") means none. */
static void read_cpulist(const char *sysroot, char *out, size_t size, const char *name)
{
    if (read_line(sysroot, out, size, "/sys/devices/system/cpu/%s", name) < 0)
        return;
    if (!out[0] || strcmp(out, "(null)") == 0) {
        memset(out, 0, size);  /* no stale bytes after the NUL: stored forms compare equal */
        snprintf(out, size, "none");
    }
}

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || isspace((unsigned char)p[-1])) && (!p[n] || isspace((unsigned char)p[n])))
            return 1;
    return 0;
}

/* An arm64 kernel's /proc/cpuinfo has no model name: a block names its core
 * by the MIDR fields, which differ per core on big.LITTLE parts. */
struct arm_midr {
    unsigned long v[4]; /* implementer, variant, part, revision */
    unsigned have;      /* bit i: v[i] read */
};

static int arm_key(const char *key, size_t klen, const char *v, struct arm_midr *a)
{
    static const char *const keys[4] = {"CPU implementer", "CPU variant", "CPU part", "CPU revision"};
    for (int i = 0; i < 4; i++)
        if (klen == strlen(keys[i]) && strncmp(key, keys[i], klen) == 0) {
            a->v[i] = strtoul(v, NULL, 0);
            a->have |= 1u << i;
            return 1;
        }
    return 0;
}

/* "ARM Neoverse N1 r3p1" from the fields, when implementer and part were read. */
static void arm_model(struct cb_fingerprint *fp, const struct arm_midr *a)
{
    if ((a->have & 5) != 5)
        return;
    struct cb_host h;
    memset(&h, 0, sizeof h);
    cb_midr_decode((uint32_t)((a->v[0] & 0xff) << 24 | (a->v[1] & 0xf) << 20 | 0xfu << 16 |
                              (a->v[2] & 0xfff) << 4 | (a->v[3] & 0xf)), &h);
    char m[sizeof h.vendor + sizeof h.model_name + 24];
    snprintf(m, sizeof m, "%s %s r%dp%d", h.vendor, h.model_name, h.family, h.stepping);
    put(fp->model, sizeof fp->model, m, strlen(m));
}

/* model name, microcode and the hypervisor flag of cpu's block of
 * /proc/cpuinfo (cpu < 0, or not listed: the first block); on arm64 the
 * model from the block's MIDR fields.  x86_keys 0 ignores the x86 fields:
 * an arm64 build's live /proc/cpuinfo under qemu-user is the x86 host's,
 * describing a machine the code does not run on. */
static int read_cpuinfo(struct cb_fingerprint *fp, const char *sysroot, int cpu, int x86_keys)
{
    char path[512], line[4096];
    snprintf(path, sizeof path, "%s/proc/cpuinfo", sysroot);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    int nblocks = 0, in = 0, matched = 0;
    struct arm_midr arm = {{0}, 0};
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        size_t klen = (size_t)(colon - line);
        while (klen && isspace((unsigned char)line[klen - 1]))
            klen--;
        const char *v = colon + 1;
        if (klen == 9 && strncmp(line, "processor", 9) == 0) {
            nblocks++;
            in = cpu < 0 ? nblocks == 1 : strtol(v, NULL, 10) == cpu;
            matched |= in;
            continue;
        }
        if (!in || arm_key(line, klen, v, &arm) || !x86_keys)
            continue;
        if (klen == 10 && strncmp(line, "model name", 10) == 0)
            put(fp->model, sizeof fp->model, v, strlen(v));
        else if (klen == 9 && strncmp(line, "microcode", 9) == 0)
            put(fp->microcode, sizeof fp->microcode, v, strlen(v));
        else if (klen == 5 && strncmp(line, "flags", 5) == 0)
            snprintf(fp->hypervisor, sizeof fp->hypervisor, "%s", has_word(v, "hypervisor") ? "yes" : "no");
    }
    fclose(f);
    if (!matched && cpu >= 0)
        return read_cpuinfo(fp, sysroot, -1, x86_keys);
    arm_model(fp, &arm);
    return 0;
}

int cb_fingerprint_read(struct cb_fingerprint *fp, const char *sysroot, int cpu)
{
    memset(fp, 0, sizeof *fp);
    if (!sysroot)
        sysroot = "";
    int pcpu = cpu >= 0 ? cpu : 0;
    /* A fixture tree is read as written, whatever the arch; the live file
     * of an arm64 build only for its arm64 fields (see read_cpuinfo). */
#if defined(__x86_64__)
    int x86_keys = 1;
#else
    int x86_keys = *sysroot != 0;
#endif
    int have_cpuinfo = read_cpuinfo(fp, sysroot, cpu, x86_keys) == 0;
    char path[512];
    struct stat sb;
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu", sysroot);
    int have_sys = stat(path, &sb) == 0;

    read_line(sysroot, fp->smt_active, sizeof fp->smt_active, "/sys/devices/system/cpu/smt/active");
    read_line(sysroot, fp->smt_control, sizeof fp->smt_control, "/sys/devices/system/cpu/smt/control");
    read_line(sysroot, fp->siblings, sizeof fp->siblings,
              "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", pcpu);
    read_line(sysroot, fp->governor, sizeof fp->governor,
              "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", pcpu);
    read_line(sysroot, fp->driver, sizeof fp->driver, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver",
              pcpu);

    /* Boost: the policy's own switch (newer kernels, amd-pstate), else the
     * global cpufreq one (acpi-cpufreq), else intel_pstate's inverse. */
    char v[16] = "";
    if (read_line(sysroot, v, sizeof v, "/sys/devices/system/cpu/cpu%d/cpufreq/boost", pcpu) == 0 ||
        read_line(sysroot, v, sizeof v, "/sys/devices/system/cpu/cpufreq/boost") == 0)
        snprintf(fp->boost, sizeof fp->boost, "%s", strcmp(v, "1") == 0 ? "on" : strcmp(v, "0") == 0 ? "off" : "");
    else if (read_line(sysroot, v, sizeof v, "/sys/devices/system/cpu/intel_pstate/no_turbo") == 0)
        snprintf(fp->boost, sizeof fp->boost, "%s", strcmp(v, "1") == 0 ? "off" : strcmp(v, "0") == 0 ? "on" : "");

    read_line(sysroot, fp->paranoid, sizeof fp->paranoid, "/proc/sys/kernel/perf_event_paranoid");
    read_line(sysroot, fp->kernel, sizeof fp->kernel, "/proc/sys/kernel/osrelease");
    read_cpulist(sysroot, fp->isolated, sizeof fp->isolated, "isolated");
    read_cpulist(sysroot, fp->nohz_full, sizeof fp->nohz_full, "nohz_full");
    if (cpu >= 0) {
        snprintf(fp->cpu, sizeof fp->cpu, "%d", cpu);
        cb_cpu_core_type(sysroot, cpu, fp->core_type, sizeof fp->core_type);
        int node = cb_cpu_numa_node(sysroot, cpu);
        if (node >= 0)
            snprintf(fp->node, sizeof fp->node, "%d", node);
    }
    return have_cpuinfo || have_sys ? 0 : -ENOENT;
}

size_t cb_fingerprint_format(const struct cb_fingerprint *fp, char *buf, size_t len)
{
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < NFIELDS; i++) {
        char v[128];
        const char *src = field_cptr(fp, &fields[i]);
        put(v, sizeof v, src, strnlen(src, fields[i].size));
        int n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, "%s=%s;", fields[i].key, v);
        off += (size_t)n;
    }
    return off;
}

int cb_fingerprint_parse(const char *s, struct cb_fingerprint *fp)
{
    memset(fp, 0, sizeof *fp);
    while (*s) {
        const char *end = strchr(s, ';');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', n);
        if (n && !eq)
            return -EINVAL;
        if (n) {
            size_t klen = (size_t)(eq - s);
            for (size_t i = 0; i < NFIELDS; i++)
                if (strlen(fields[i].key) == klen && strncmp(fields[i].key, s, klen) == 0) {
                    put(field_ptr(fp, &fields[i]), fields[i].size, eq + 1, n - klen - 1);
                    break;
                }
        }
        s += n + (end ? 1 : 0);
    }
    return 0;
}

size_t cb_fingerprint_lines(const struct cb_fingerprint *fp, char *buf, size_t len)
{
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < NFIELDS; i++) {
        if (!(fields[i].flags & FP_TIMING))
            continue;
        const char *v = fp ? field_cptr(fp, &fields[i]) : "";
        int n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, "%s=%s\n", fields[i].label, v);
        off += (size_t)n;
    }
    return off;
}

/* "yes"/"no" for the pinned CPU in a CPU list field, "" unknown. */
static const char *member(const struct cb_fingerprint *fp, const char *list)
{
    int has = fp->cpu[0] && list[0] ? cb_cpulist_has(list, atoi(fp->cpu)) : -1;
    return has < 0 ? "" : has ? "yes" : "no";
}

size_t cb_fingerprint_cpu_lines(const struct cb_fingerprint *fp, char *buf, size_t len)
{
    int known = fp && fp->cpu[0];
    int nsib = known && fp->siblings[0] ? cb_cpulist_count(fp->siblings) : -1;
    return (size_t)snprintf(buf, len,
                            "pinned cpu core type=%s\npinned cpu smt sibling=%s\n"
                            "pinned cpu isolated=%s\npinned cpu nohz_full=%s\n"
                            "pinned cpu numa node=%s\n",
                            known ? fp->core_type : "", nsib < 0 ? "" : nsib > 1 ? "yes" : "no",
                            known ? member(fp, fp->isolated) : "", known ? member(fp, fp->nohz_full) : "",
                            known ? fp->node : "");
}

int cb_fingerprint_diff(const char *a, const char *b, struct cb_sb *why)
{
    int differ = 0;
    struct cb_sb none = CB_SB_INIT;
    if (!why)
        why = &none;
    cb_sb_reset(why);
    const char *pa = a, *pb = b;
    while (*pa && *pb) {
        const char *ea = strchr(pa, '\n'), *eb = strchr(pb, '\n');
        if (!ea || !eb)
            break;
        size_t la = (size_t)(ea - pa), lb = (size_t)(eb - pb);
        const char *qa = memchr(pa, '=', la), *qb = memchr(pb, '=', lb);
        size_t na = qa ? (size_t)(qa - pa) : la, nb = qb ? (size_t)(qb - pb) : lb;
        const char *va = qa ? qa + 1 : pa + la, *vb = qb ? qb + 1 : pb + lb;
        size_t vla = (size_t)(ea - va), vlb = (size_t)(eb - vb);
        int known = vla > 0 && vlb > 0;
        if (na != nb || memcmp(pa, pb, na) != 0 || (known && (vla != vlb || memcmp(va, vb, vla) != 0))) {
            cb_sb_addf(why, "%s%.*s: '%.*s' vs '%.*s'", differ ? "; " : "", (int)na, pa, (int)vla,
                       va, (int)vlb, vb);
            differ = 1;
        }
        pa = ea + 1;
        pb = eb + 1;
    }
    if (*pa || *pb)
        differ = 1;
    cb_sb_release(&none);
    return differ;
}

int cb_fingerprint_scaling(const struct cb_fingerprint *fp)
{
    if (!fp->governor[0])
        return -1;
    return strcmp(fp->governor, "performance") != 0;
}

static const char *or_unknown(const char *s)
{
    return s[0] ? s : "unknown";
}

void cb_fingerprint_describe(const struct cb_fingerprint *fp, char *buf, size_t len)
{
    const char *smt = strcmp(fp->smt_active, "1") == 0 ? "on" : strcmp(fp->smt_active, "0") == 0 ? "off" : "unknown";
    char gov[64];
    if (fp->governor[0] && fp->driver[0])
        snprintf(gov, sizeof gov, "%s (%s)", fp->governor, fp->driver);
    else
        snprintf(gov, sizeof gov, "%s", fp->governor[0] ? fp->governor : "unknown (no cpufreq)");
    snprintf(buf, len,
             "governor %s, boost %s, SMT %s (cpu %s siblings %s), hypervisor %s, isolcpus %s, nohz_full %s, "
             "perf_event_paranoid %s, kernel %s",
             gov, or_unknown(fp->boost), smt, fp->cpu[0] ? fp->cpu : "unpinned", or_unknown(fp->siblings),
             or_unknown(fp->hypervisor), or_unknown(fp->isolated), or_unknown(fp->nohz_full),
             or_unknown(fp->paranoid), or_unknown(fp->kernel));
}

const char *cb_fingerprint_field(const struct cb_fingerprint *fp, size_t i, const char **key)
{
    if (i >= NFIELDS)
        return NULL;
    if (key)
        *key = fields[i].key;
    return field_cptr(fp, &fields[i]);
}
