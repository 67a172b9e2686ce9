/* emulation.h — whether this process runs on an emulated CPU.
 *
 * Under qemu-user (or qemu's TCG system emulation, or a software model)
 * every instruction is translated: a "cycle" is the host's time spent
 * translating and running the translation, not a cost of the code on any
 * real machine.  Such a run still proves that every variant computes the
 * right result, so it is kept, but labelled: the store records why it is
 * emulated (runs.emulated, 0017_emulated.sql) and every report says so, and
 * compare draws no verdict from it.
 *
 * valgrind is not emulation for this purpose: `run --sim` counts under
 * callgrind on purpose and is labelled SIMULATED already.
 *
 * The rules, first that fires wins:
 *   1. CB_EMULATED=<reason> in the environment: CI knows it runs the binary
 *      under qemu and says so; CB_EMULATED=0 forces native (a real machine
 *      that a rule below would misjudge).  An empty value is as unset.
 *   2. aarch64: /proc/cpuinfo without "CPU implementer" but with x86 fields
 *      (vendor_id, flags): qemu-user passes the x86 host's file through.
 *   3. aarch64: MIDR_EL1's implementer is 0x00, which Arm reserves for
 *      software use (qemu's "max" CPU reads 0x000f0510): an emulator or model.
 *   4. x86_64: cpuid's hypervisor vendor is "TCGTCGTCGTCG" (qemu's TCG).
 *   5. x86_64: /proc/cpuinfo with "CPU implementer" and no vendor_id: an
 *      x86 binary under qemu-user on an Arm host. */
#ifndef CB_EMULATION_H
#define CB_EMULATION_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#define CB_EMULATED_ENV "CB_EMULATED"

/* What the rules look at; the live wrapper reads them, tests feed them. */
struct cb_emulation_inputs {
    const char *env;         /* CB_EMULATED's value; NULL unset */
    const char *arch;        /* the binary's: "aarch64" or "x86_64" */
    const char *cpuinfo;     /* /proc/cpuinfo's text (its start is enough); NULL unread */
    int have_midr;           /* aarch64: 1 when midr holds MIDR_EL1 */
    uint64_t midr;
    const char *hv_vendor;   /* x86_64: cpuid 0x40000000's 12 bytes; NULL or "" none */
};

/* 1: emulated, why says which rule fired and what it saw; 0: native (why
 * ""); -EINVAL without inputs.  why may be NULL. */
int cb_emulation_detect(const struct cb_emulation_inputs *in, struct cb_sb *why);

/* The same for this process: reads the environment, /proc/cpuinfo, MIDR_EL1
 * (where HWCAP_CPUID lets EL0 read it) or cpuid's hypervisor leaf. */
int cb_emulation_live(struct cb_sb *why);

#endif
