/* test_emulation.c — the emulation rules (emulation.h) fed the inputs of
 * known machines, both arches' rules on whichever arch runs the test: the
 * start of /proc/cpuinfo as an x86 host, a Neoverse N1 and qemu-user show
 * it, MIDR_EL1 as qemu's max CPU and an N1 read it, cpuid's hypervisor
 * vendor under qemu TCG and KVM. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/emulation.h"
#include "tap.h"

/* An Intel host's first processor block (abridged): what qemu-aarch64
 * passes through to the binary it runs. */
static const char x86_info[] =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 85\n"
    "model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov hypervisor\n"
    "vmx flags\t: vnmi preemption_timer\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: GenuineIntel\n";

/* A Neoverse N1 (Graviton2) as its kernel shows it. */
static const char n1_info[] =
    "processor\t: 0\n"
    "BogoMIPS\t: 243.75\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant\t: 0x3\n"
    "CPU part\t: 0xd0c\n"
    "CPU revision\t: 1\n"
    "\n";

/* The kernel's view of a software model's CPU (implementer 0x00). */
static const char model_info[] =
    "processor\t: 0\n"
    "Features\t: fp asimd cpuid\n"
    "CPU implementer\t: 0x00\n"
    "CPU part\t: 0x051\n"
    "\n";

static int detect(const struct cb_emulation_inputs *in, struct cb_sb *why)
{
    return cb_emulation_detect(in, why);
}

static void test_env(void)
{
    struct cb_sb why = CB_SB_INIT;
    struct cb_emulation_inputs in = {.env = "qemu-test", .arch = "x86_64"};
    is_int(detect(&in, &why), 1, "CB_EMULATED=qemu-test: emulated");
    is_str(why.buf, "CB_EMULATED=qemu-test", "the reason is CI's, and says who said it");
    /* "0" beats a rule that would fire: a real machine misjudged. */
    in = (struct cb_emulation_inputs){.env = "0", .arch = "x86_64", .hv_vendor = "TCGTCGTCGTCG"};
    is_int(detect(&in, &why), 0, "CB_EMULATED=0: native even under TCG's vendor");
    is_str(why.buf, "", "no reason when native");
    in.env = "";
    is_int(detect(&in, &why), 1, "an empty CB_EMULATED is as unset: the TCG rule fires");
    is_int(cb_emulation_detect(NULL, &why), -EINVAL, "no inputs: -EINVAL");
    cb_sb_release(&why);
}

static void test_aarch64(void)
{
    struct cb_sb why = CB_SB_INIT;
    struct cb_emulation_inputs in = {.arch = "aarch64", .cpuinfo = x86_info, .have_midr = 1,
                                     .midr = 0x000f0510};
    is_int(detect(&in, &why), 1, "aarch64 with an x86 host's cpuinfo: qemu-user");
    is_str(why.buf, "qemu-user: /proc/cpuinfo is an x86 host's (vendor_id GenuineIntel) while this "
           "binary is aarch64", "the reason names the rule and what it saw");
    in.cpuinfo = NULL;
    is_int(detect(&in, &why), 1, "cpuinfo unread, MIDR 0x000f0510: emulator");
    ok(strstr(why.buf, "MIDR_EL1 0x000f0510 has implementer 0x00") != NULL, "the reason: %s", why.buf);
    in.cpuinfo = n1_info;
    in.midr = 0x413fd0c1;
    is_int(detect(&in, &why), 0, "Neoverse N1 (cpuinfo and MIDR 0x413fd0c1): native");
    is_str(why.buf, "", "no reason on the N1");
    in.have_midr = 0;
    is_int(detect(&in, &why), 0, "N1 without HWCAP_CPUID: native from cpuinfo alone");
    in.cpuinfo = model_info;
    is_int(detect(&in, &why), 1, "cpuinfo's CPU implementer 0x00 without MIDR: emulator");
    ok(strstr(why.buf, "CPU implementer is 0x00") != NULL, "the reason: %s", why.buf);
    /* A real Arm machine whose cpuinfo also had x86-looking lines would
     * still show CPU implementer: not the qemu-user rule. */
    in = (struct cb_emulation_inputs){.arch = "aarch64", .cpuinfo = n1_info, .hv_vendor =
                                      "TCGTCGTCGTCG"};
    is_int(detect(&in, &why), 0, "x86's TCG rule is not read on aarch64");
    in = (struct cb_emulation_inputs){.arch = "aarch64"};
    is_int(detect(&in, &why), 0, "nothing known: native (never a guess)");
    cb_sb_release(&why);
}

static void test_x86_64(void)
{
    struct cb_sb why = CB_SB_INIT;
    struct cb_emulation_inputs in = {.arch = "x86_64", .cpuinfo = x86_info,
                                     .hv_vendor = "TCGTCGTCGTCG"};
    is_int(detect(&in, &why), 1, "x86_64 under qemu TCG: emulated");
    ok(strstr(why.buf, "qemu TCG") && strstr(why.buf, "TCGTCGTCGTCG"), "the reason: %s", why.buf);
    in.hv_vendor = "KVMKVMKVM\0\0\0";
    is_int(detect(&in, &why), 0, "KVM is a hypervisor, not an emulator: native");
    in.hv_vendor = "";
    is_int(detect(&in, &why), 0, "no hypervisor: native");
    in.cpuinfo = n1_info;
    is_int(detect(&in, &why), 1, "x86_64 with an Arm host's cpuinfo: qemu-user");
    is_str(why.buf, "qemu-user: /proc/cpuinfo is an Arm host's (CPU implementer 0x41) while this "
           "binary is x86_64", "the reason names the rule and what it saw");
    in = (struct cb_emulation_inputs){.arch = "x86_64", .have_midr = 1, .midr = 0x000f0510};
    is_int(detect(&in, &why), 0, "aarch64's MIDR rule is not read on x86_64");
    cb_sb_release(&why);
}

/* The live wrapper: only the environment's answer is known on every host. */
static void test_live(void)
{
    struct cb_sb why = CB_SB_INIT;
    setenv(CB_EMULATED_ENV, "qemu-test", 1);
    is_int(cb_emulation_live(&why), 1, "live, CB_EMULATED=qemu-test: emulated");
    is_str(why.buf, "CB_EMULATED=qemu-test", "live reason");
    setenv(CB_EMULATED_ENV, "0", 1);
    is_int(cb_emulation_live(&why), 0, "live, CB_EMULATED=0: native");
    unsetenv(CB_EMULATED_ENV);
    int r = cb_emulation_live(&why);
    ok(r == 0 || r == 1, "live, unset: %s", r ? why.buf : "native");
    cb_sb_release(&why);
}

int main(void)
{
    test_env();
    test_aarch64();
    test_x86_64();
    test_live();
    return tap_done();
}
