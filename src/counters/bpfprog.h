/* bpfprog.h — BPF programs loaded through libbpf and run by
 * BPF_PROG_TEST_RUN: what `bpf run` reads its figures from.
 *
 * A program is loaded from an ELF object (a file, or the tool's own
 * objects embedded at build time) and run `repeat` times in one
 * BPF_PROG_TEST_RUN call: the TSC is read around the call, and the
 * kernel's own `duration` (whole ns per run, its ktime) comes back beside
 * it.  Every reason it cannot be done is a refusal with its remedy: no
 * CAP_BPF/CAP_SYS_ADMIN, bpf() refused (a seccomp filter, an LSM), no BPF
 * syscall in the kernel, a program the verifier rejects (the log's tail).
 * Without libbpf at build time every call says how to get it. */
#ifndef CB_BPFPROG_H
#define CB_BPFPROG_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

struct cb_bpf_obj;

/* The tool's own object, built from bpf/cb_bpf.bpf.c with clang and
 * embedded at build time; its length is 0 in a build without BPF. */
extern const unsigned char cb_bpf_obj[];
extern const size_t cb_bpf_obj_len;

/* 1 when this build has libbpf (configure found libbpf-dev and clang). */
int cb_bpf_available(void);
/* 0 when this process may load XDP programs (CAP_SYS_ADMIN, or CAP_BPF
 * with CAP_NET_ADMIN); -EPERM with the remedy.  status is the
 * /proc/self/status to read (NULL: this process's; tests). */
int cb_bpf_check_caps(const char *status, struct cb_sb *why);

/* Open and load the object: a file (path), or len bytes at mem named name.
 * 0; -EACCES/-EINVAL when the verifier rejected a program (why: which, and
 * the last lines of its log), -EPERM when bpf() was refused, -ENOSYS when
 * the kernel has no bpf(), -ENOENT/-EBADF when the file is not there or
 * not a BPF object. */
int cb_bpf_open(const char *path, const void *mem, size_t len, const char *name,
                struct cb_bpf_obj **o, struct cb_sb *why);
void cb_bpf_close(struct cb_bpf_obj *o);

/* The fd of program name (NULL: the object's only XDP program; more than
 * one is -EINVAL naming them).  *prog_name gets its name. */
int cb_bpf_prog(struct cb_bpf_obj *o, const char *name, const char **prog_name,
                struct cb_sb *why);
/* The program's tag as the kernel computed it (16 hex digits, over its
 * instructions), into tag[17], and where its JITed code sits: its first
 * function's address mod 4096 into *addr (-1 when the kernel hides its
 * addresses: kptr_restrict, or no JIT).  Two loads of one object have one
 * tag and, often, another address: compare calls a change between them
 * placement. */
int cb_bpf_prog_tag(int fd, char *tag, int *addr);

/* Keep an XDP program in the kernel's XDP dispatcher for as long as this
 * process holds it: BPF_PROG_TEST_RUN with repeat > 1 adds the program to
 * the dispatcher and removes it again, two updates that wait for RCU
 * (milliseconds each, tens on a busy VM) unless the program is there
 * already.  It is put there by attaching it, in generic mode, to a tap
 * device of this process's (kept down: no traffic reaches it), which
 * disappears when the process ends.  0, or -errno with why (no
 * /dev/net/tun: the calls then pay the updates). */
int cb_bpf_pin(int prog_fd, struct cb_sb *why);
/* Detach and close every tap made by cb_bpf_pin. */
void cb_bpf_unpin_all(void);

/* The object's .bss, read or written whole (len bytes from offset 0). */
int cb_bpf_bss_write(struct cb_bpf_obj *o, const void *buf, size_t len);
int cb_bpf_bss_read(struct cb_bpf_obj *o, void *buf, size_t len);

/* One BPF_PROG_TEST_RUN call. */
struct cb_bpf_call {
    const void *data;         /* the frame the program is given */
    uint32_t size;
    uint32_t repeat;          /* runs in the call, >= 1 */
    int live;                 /* BPF_F_TEST_XDP_LIVE_FRAMES */
    void *out;                /* the frame after one run (default mode only); NULL: none */
    uint32_t out_size;        /* in: out's room; out: the frame's length */
    uint32_t retval;          /* the program's return */
    uint32_t duration_ns;     /* the kernel's ns per run (whole ns) */
    uint64_t ticks;           /* TSC ticks around the call */
    long switches;            /* context switches of this thread during the call: the
                                 test loop yields when asked to (cond_resched), and the
                                 time given away is in ticks, not in duration_ns */
};
/* 0, or -errno (why says what the kernel refused). */
int cb_bpf_test_run(int fd, struct cb_bpf_call *c, struct cb_sb *why);

#endif
