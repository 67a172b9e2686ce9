/* bpf.h — what `bpf run` measures and how it is stored (bpf.c parses,
 * refuses and loads; bpf_store.c verifies, times and writes the run). */
#ifndef CB_CMD_BPF_H
#define CB_CMD_BPF_H

#include <stdint.h>

#include "harness/bpfmeasure.h"
#include "harness/harness.h"
#include "harness/pktframe.h"
#include "util/strbuf.h"

#define CB_BPF_CASES_MAX 64
#define CB_BPF_SIZES_MAX 16

struct bpf_plan {
    const char *probes_arg, *sizes_arg, *frames_arg, *mode_arg, *xdp, *prog, *db, *tag;
    int quiet, cpu, pinned, expect, want_csum, want_xdp, want_default, want_live;
    enum cb_frame_proto proto;
    struct cb_harness_opts harness;
    struct cb_sb cmdline;
    uint64_t sizes[CB_BPF_SIZES_MAX], frames[CB_BPF_SIZES_MAX];
    int nsizes, nframes;
    /* Loaded: the tool's object (empty programs, csum) and the user's. */
    struct cb_bpf_obj *tool, *user;
    int empty_pass, empty_drop, csum_fd, xdp_fd;
    const char *xdp_name;
    char tool_sha[65], user_sha[65], config_sha[65], release[128];
    char csum_tag[17], xdp_tag[17], empty_tag[17], empty_drop_tag[17];
    int csum_addr, xdp_addr, empty_addr, empty_drop_addr;   /* JIT address mod 4096; -1 */
    struct cb_bpf_case cases[CB_BPF_CASES_MAX];
    char names[CB_BPF_CASES_MAX][80];
    unsigned char frames_buf[CB_BPF_CASES_MAX][CB_FRAME_MAX];
    size_t ncases;
};

/* Open the store, begin the run, verify and time every case, finish:
 * the exit status (0; 1 when a case was BAD or the run failed). */
int cb_bpf_collect(struct bpf_plan *b);

#endif
