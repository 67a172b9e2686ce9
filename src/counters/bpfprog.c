/* bpfprog.c — BPF programs through libbpf and BPF_PROG_TEST_RUN (bpfprog.h). */
#define _GNU_SOURCE
#include "counters/bpfprog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "counters/tsc.h"

#define CAP_NET_ADMIN_BIT 12
#define CAP_SYS_ADMIN_BIT 21
#define CAP_BPF_BIT 39

int cb_bpf_check_caps(const char *status, struct cb_sb *why)
{
    char line[256];
    unsigned long long eff = 0;
    int have = 0;
    FILE *f = fopen(status ? status : "/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &eff) == 1)
            have = 1;
    if (f)
        fclose(f);
    if (!have)
        eff = geteuid() == 0 ? ~0ull : 0;
    int admin = (eff >> CAP_SYS_ADMIN_BIT) & 1;
    int bpf = (eff >> CAP_BPF_BIT) & 1, net = (eff >> CAP_NET_ADMIN_BIT) & 1;
    if (admin || (bpf && net))
        return 0;
    cb_sb_addf(why, "loading an XDP program needs CAP_BPF with CAP_NET_ADMIN, or CAP_SYS_ADMIN "
                    "(in practice root), and this process (uid %u) has %s: run it with sudo",
               (unsigned)geteuid(), bpf ? "CAP_BPF alone" : net ? "CAP_NET_ADMIN alone" : "neither");
    return -EPERM;
}

#ifdef HAVE_LIBBPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <stdint.h>
#include <sys/resource.h>

struct cb_bpf_obj {
    struct bpf_object *obj;
};

/* libbpf's messages, kept for the refusal instead of printed. */
static struct cb_sb *libbpf_log;

static int keep_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level == LIBBPF_DEBUG || !libbpf_log)
        return 0;
    char buf[4096];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    cb_sb_adds(libbpf_log, buf);
    return n;
}

int cb_bpf_available(void)
{
    return 1;
}

/* The verifier's log as libbpf printed it: its last lines (the reason is
 * at the end), on one line. */
static void log_tail(const char *log, struct cb_sb *why)
{
    const char *b = strstr(log, "-- BEGIN PROG LOAD LOG --");
    const char *e = b ? strstr(b, "-- END PROG LOAD LOG --") : NULL;
    if (!b || !e) {
        cb_sb_adds(why, "no verifier log");
        return;
    }
    b += strlen("-- BEGIN PROG LOAD LOG --");
    /* The last 3 non-empty lines before the statistics line. */
    const char *lines[8] = {0};
    size_t lens[8] = {0}, n = 0;
    for (const char *p = b; p < e;) {
        const char *q = memchr(p, '\n', (size_t)(e - p));
        size_t l = q ? (size_t)(q - p) : (size_t)(e - p);
        if (l && strncmp(p, "processed ", 10) != 0 && strncmp(p, "verification time", 17) != 0 &&
            strncmp(p, "stack depth", 11) != 0) {
            memmove(lines, lines + (n == 8), sizeof lines - sizeof lines[0] * (n == 8));
            memmove(lens, lens + (n == 8), sizeof lens - sizeof lens[0] * (n == 8));
            n -= n == 8;
            lines[n] = p;
            lens[n++] = l;
        }
        p = q ? q + 1 : e;
    }
    size_t first = n > 3 ? n - 3 : 0;
    for (size_t i = first; i < n; i++)
        cb_sb_addf(why, "%s%.*s", i > first ? " | " : "", (int)lens[i], lines[i]);
}

static int load_error(int rc, const char *what, const char *log, struct cb_sb *why)
{
    if (rc == -EPERM)
        cb_sb_addf(why, "the kernel refused bpf() to this process though it has the capabilities "
                        "(%s): a seccomp filter or an LSM blocks it, or the process runs in a "
                        "user namespace (a rootless container) whose capabilities bpf() does not "
                        "count; run it on the host, or allow bpf() in the container",
                   strerror(-rc));
    else if (rc == -ENOSYS)
        cb_sb_adds(why, "this kernel has no bpf() (built without CONFIG_BPF_SYSCALL): run on a "
                        "kernel with BPF");
    else if (strstr(log, "-- BEGIN PROG LOAD LOG --")) {
        cb_sb_addf(why, "the verifier rejected %s (%s); the end of its log: ", what,
                   strerror(-rc));
        log_tail(log, why);
        cb_sb_adds(why, "; fix the program (the whole log: bpftool prog load FILE /sys/fs/bpf/x)");
    } else {
        const char *nl = strrchr(log, ':');
        cb_sb_addf(why, "libbpf could not load %s: %s%s%.*s", what, strerror(-rc), *log ? " (" : "",
                   *log ? (int)strcspn(nl ? nl + 2 : log, "\n") : 0, nl ? nl + 2 : log);
        if (*log)
            cb_sb_adds(why, ")");
    }
    return rc == -EPERM || rc == -ENOSYS ? rc : -EACCES;
}

int cb_bpf_open(const char *path, const void *mem, size_t len, const char *name,
                struct cb_bpf_obj **out, struct cb_sb *why)
{
    struct cb_sb log = CB_SB_INIT;
    libbpf_log = &log;
    libbpf_set_print(keep_print);
    LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = name);
    struct bpf_object *obj = path ? bpf_object__open_file(path, &oo)
                                  : bpf_object__open_mem(mem, len, &oo);
    int rc = libbpf_get_error(obj);
    if (rc) {
        obj = NULL;
        if (rc == -ENOENT || rc == -EACCES)
            cb_sb_addf(why, "%s cannot be read: %s", path ? path : name, strerror(-rc));
        else {
            char msg[128];
            libbpf_strerror(rc, msg, sizeof msg);
            cb_sb_addf(why, "%s is not a BPF object libbpf can open (%s): build it with clang "
                            "-O2 -g -target bpf -c", path ? path : name, msg);
        }
        rc = rc == -ENOENT ? -ENOENT : -EBADF;
    } else if ((rc = bpf_object__load(obj)) < 0) {
        rc = load_error(rc, path ? path : name, log.buf, why);
        bpf_object__close(obj);
        obj = NULL;
    }
    libbpf_log = NULL;
    cb_sb_release(&log);
    if (rc < 0)
        return rc;
    *out = calloc(1, sizeof **out);
    if (!*out) {
        bpf_object__close(obj);
        return -ENOMEM;
    }
    (*out)->obj = obj;
    return 0;
}

void cb_bpf_close(struct cb_bpf_obj *o)
{
    if (!o)
        return;
    bpf_object__close(o->obj);
    free(o);
}

int cb_bpf_prog(struct cb_bpf_obj *o, const char *name, const char **prog_name, struct cb_sb *why)
{
    struct bpf_program *p, *found = NULL;
    struct cb_sb names = CB_SB_INIT;
    int nxdp = 0;
    bpf_object__for_each_program(p, o->obj) {
        int xdp = bpf_program__type(p) == BPF_PROG_TYPE_XDP;
        if (xdp)
            cb_sb_addf(&names, "%s%s", nxdp++ ? ", " : "", bpf_program__name(p));
        if (name ? strcmp(bpf_program__name(p), name) == 0 : xdp && !found)
            found = p;
    }
    int rc = 0;
    if (!found || (!name && nxdp > 1) || bpf_program__type(found) != BPF_PROG_TYPE_XDP) {
        if (found && bpf_program__type(found) != BPF_PROG_TYPE_XDP)
            cb_sb_addf(why, "program %s is not an XDP program (SEC(\"xdp\")): bpf run times XDP "
                            "programs", name);
        else if (nxdp == 0)
            cb_sb_adds(why, "the object has no XDP program (SEC(\"xdp\"))");
        else
            cb_sb_addf(why, "%s: give --prog, one of %s", name ? "no such program" : "more than "
                       "one XDP program", names.buf);
        rc = -EINVAL;
    } else {
        *prog_name = bpf_program__name(found);
        rc = bpf_program__fd(found);
    }
    cb_sb_release(&names);
    return rc;
}

int cb_bpf_prog_tag(int fd, char *tag, int *addr)
{
    struct bpf_prog_info info;
    __u64 ksym = 0;
    __u32 len = sizeof info;
    memset(&info, 0, sizeof info);
    info.nr_jited_ksyms = 1;
    info.jited_ksyms = (__u64)(uintptr_t)&ksym;
    int rc = bpf_obj_get_info_by_fd(fd, &info, &len);
    if (rc < 0)
        return rc;
    for (int i = 0; i < BPF_TAG_SIZE; i++)
        snprintf(tag + 2 * i, 3, "%02x", info.tag[i]);
    *addr = ksym ? (int)(ksym % 4096) : -1;
    return 0;
}

static struct bpf_map *bss(struct cb_bpf_obj *o)
{
    struct bpf_map *m;
    bpf_object__for_each_map(m, o->obj) {
        const char *n = bpf_map__name(m);
        size_t l = strlen(n);
        if (bpf_map__is_internal(m) && l >= 4 && strcmp(n + l - 4, ".bss") == 0)
            return m;
    }
    return NULL;
}

/* The .bss's one value, read, changed in its first len bytes, written. */
static int bss_rw(struct cb_bpf_obj *o, void *buf, size_t len, int write)
{
    struct bpf_map *m = bss(o);
    if (!m)
        return -ENOENT;
    size_t vs = bpf_map__value_size(m);
    if (len > vs)
        return -EINVAL;
    unsigned char *v = calloc(1, vs);
    __u32 zero = 0;
    if (!v)
        return -ENOMEM;
    int rc = bpf_map_lookup_elem(bpf_map__fd(m), &zero, v);
    if (rc == 0 && write) {
        memcpy(v, buf, len);
        rc = bpf_map_update_elem(bpf_map__fd(m), &zero, v, 0);
    } else if (rc == 0) {
        memcpy(buf, v, len);
    }
    free(v);
    return rc < 0 ? -errno : 0;
}

int cb_bpf_bss_write(struct cb_bpf_obj *o, const void *buf, size_t len)
{
    return bss_rw(o, (void *)buf, len, 1);
}

int cb_bpf_bss_read(struct cb_bpf_obj *o, void *buf, size_t len)
{
    return bss_rw(o, buf, len, 0);
}

#define PINS_MAX 8
static struct {
    int tun, ifindex;
} pins[PINS_MAX];
static int npins;

int cb_bpf_pin(int prog_fd, struct cb_sb *why)
{
    if (npins == PINS_MAX)
        return -E2BIG;
    int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (tun < 0) {
        int e = errno;
        cb_sb_addf(why, "/dev/net/tun: %s", strerror(e));
        return -e;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "cbbpf%%d");
    int rc = ioctl(tun, TUNSETIFF, &ifr) < 0 ? -errno : 0;
    int ifindex = rc == 0 ? (int)if_nametoindex(ifr.ifr_name) : 0;
    if (rc == 0 && ifindex == 0)
        rc = -errno;
    if (rc == 0)
        rc = bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_SKB_MODE, NULL);
    if (rc < 0) {
        cb_sb_addf(why, "a tap device to hold the program: %s", strerror(-rc));
        close(tun);
        return rc;
    }
    pins[npins].tun = tun;
    pins[npins++].ifindex = ifindex;
    return 0;
}

void cb_bpf_unpin_all(void)
{
    while (npins > 0) {
        npins--;
        bpf_xdp_detach(pins[npins].ifindex, XDP_FLAGS_SKB_MODE, NULL);
        close(pins[npins].tun);
    }
}

int cb_bpf_test_run(int fd, struct cb_bpf_call *c, struct cb_sb *why)
{
    LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = c->data, .data_size_in = c->size,
                .repeat = (int)c->repeat, .flags = c->live ? BPF_F_TEST_XDP_LIVE_FRAMES : 0);
    if (!c->live && c->out) {
        t.data_out = c->out;
        t.data_size_out = c->out_size;
    }
    struct rusage u0, u1;
    getrusage(RUSAGE_THREAD, &u0);
    uint64_t t0 = cb_tsc_begin();
    int rc = bpf_prog_test_run_opts(fd, &t);
    uint64_t t1 = cb_tsc_end();
    getrusage(RUSAGE_THREAD, &u1);
    c->switches = (u1.ru_nvcsw - u0.ru_nvcsw) + (u1.ru_nivcsw - u0.ru_nivcsw);
    if (rc < 0) {
        rc = -errno;
        if (c->live && (rc == -EPERM || rc == -EINVAL))
            cb_sb_addf(why, "the kernel refused live frames (BPF_F_TEST_XDP_LIVE_FRAMES: %s)%s",
                       strerror(-rc), rc == -EINVAL ? ": it needs Linux 5.18 or later"
                                                    : ": a kernel or sandbox that allows no "
                                                      "packet injection; -m default times the "
                                                      "program alone");
        else
            cb_sb_addf(why, "BPF_PROG_TEST_RUN failed: %s", strerror(-rc));
        return rc;
    }
    c->ticks = t1 - t0;
    c->retval = t.retval;
    c->duration_ns = t.duration;
    if (t.data_out)
        c->out_size = t.data_size_out;
    return 0;
}

#else /* !HAVE_LIBBPF */

#define NO_LIBBPF "this cyclebudget was built without libbpf: install libbpf-dev and clang " \
                  "(Debian: apt-get install libbpf-dev clang), then ./configure and make again"

const unsigned char cb_bpf_obj[1];
const size_t cb_bpf_obj_len = 0;

int cb_bpf_available(void)
{
    return 0;
}

int cb_bpf_open(const char *path, const void *mem, size_t len, const char *name,
                struct cb_bpf_obj **o, struct cb_sb *why)
{
    (void)path, (void)mem, (void)len, (void)name, (void)o;
    cb_sb_adds(why, NO_LIBBPF);
    return -ENOSYS;
}

void cb_bpf_close(struct cb_bpf_obj *o)
{
    (void)o;
}

int cb_bpf_prog(struct cb_bpf_obj *o, const char *name, const char **prog_name, struct cb_sb *why)
{
    (void)o, (void)name, (void)prog_name;
    cb_sb_adds(why, NO_LIBBPF);
    return -ENOSYS;
}

int cb_bpf_prog_tag(int fd, char *tag, int *addr)
{
    (void)fd, (void)tag, (void)addr;
    return -ENOSYS;
}

int cb_bpf_bss_write(struct cb_bpf_obj *o, const void *buf, size_t len)
{
    (void)o, (void)buf, (void)len;
    return -ENOSYS;
}

int cb_bpf_bss_read(struct cb_bpf_obj *o, void *buf, size_t len)
{
    (void)o, (void)buf, (void)len;
    return -ENOSYS;
}

int cb_bpf_pin(int prog_fd, struct cb_sb *why)
{
    (void)prog_fd;
    cb_sb_adds(why, NO_LIBBPF);
    return -ENOSYS;
}

void cb_bpf_unpin_all(void)
{
}

int cb_bpf_test_run(int fd, struct cb_bpf_call *c, struct cb_sb *why)
{
    (void)fd, (void)c;
    cb_sb_adds(why, NO_LIBBPF);
    return -ENOSYS;
}
#endif
