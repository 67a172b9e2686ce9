/* cpu_armid.c — arm64 identity (MIDR_EL1) and features (HWCAPs) as pure
 * functions of the register values.  Built on every arch, so the tables are
 * tested on the x86 CI machine too; cpu_arm64.c feeds them the live values. */
#include "host/cpu.h"

#include <stdio.h>

/* Linux's arch/arm64/include/uapi/asm/hwcap.h: the ABI, fixed, so the values
 * are spelled here (and checked against the header in test_cpu_arm). */
#define HWCAP_ASIMD (1ul << 1)
#define HWCAP_PMULL (1ul << 4)
#define HWCAP_CRC32 (1ul << 7)
#define HWCAP_ATOMICS (1ul << 8)
#define HWCAP_CPUID (1ul << 11)
#define HWCAP_SVE (1ul << 22)
#define HWCAP2_SVE2 (1ul << 1)
#define DCZID_DZP (1u << 4) /* dc zva prohibited */

unsigned cb_hwcap_features(unsigned long hwcap, unsigned long hwcap2, uint64_t dczid)
{
    static const struct {
        unsigned long bit;
        unsigned flag;
    } one[] = {
        {HWCAP_ASIMD, CB_CPU_ASIMD}, {HWCAP_PMULL, CB_CPU_PMULL}, {HWCAP_CRC32, CB_CPU_CRC32},
        {HWCAP_ATOMICS, CB_CPU_LSE}, {HWCAP_CPUID, CB_CPU_CPUID_EL1}, {HWCAP_SVE, CB_CPU_SVE},
    };
    unsigned f = 0;
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (hwcap & one[i].bit)
            f |= one[i].flag;
    /* SVE2 without SVE is not a state the kernel reports; require both so a
     * masked "sve" also hides the SVE2 variants' base. */
    if ((hwcap2 & HWCAP2_SVE2) && (f & CB_CPU_SVE))
        f |= CB_CPU_SVE2;
    if (!(dczid & DCZID_DZP))
        f |= CB_CPU_DCZVA;
    return f;
}

static const struct {
    unsigned id;
    const char *name;
} implementers[] = {
    {0x00, "software"}, /* reserved for software use: emulators (qemu) and models */
    {0x41, "ARM"},      {0x42, "Broadcom"},  {0x43, "Cavium"},  {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},   {0x51, "Qualcomm"}, {0x61, "Apple"},
    {0x6d, "Microsoft"}, {0xc0, "Ampere"},
};

/* Part numbers as Linux's arch/arm64/include/asm/cputype.h names them. */
static const struct {
    unsigned impl, part;
    const char *name;
} parts[] = {
    {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd04, "Cortex-A35"},  {0x41, 0xd05, "Cortex-A55"},
    {0x41, 0xd07, "Cortex-A57"},  {0x41, 0xd08, "Cortex-A72"},  {0x41, 0xd09, "Cortex-A73"},
    {0x41, 0xd0a, "Cortex-A75"},  {0x41, 0xd0b, "Cortex-A76"},  {0x41, 0xd0c, "Neoverse N1"},
    {0x41, 0xd0d, "Cortex-A77"},  {0x41, 0xd40, "Neoverse V1"}, {0x41, 0xd41, "Cortex-A78"},
    {0x41, 0xd44, "Cortex-X1"},   {0x41, 0xd46, "Cortex-A510"}, {0x41, 0xd47, "Cortex-A710"},
    {0x41, 0xd48, "Cortex-X2"},   {0x41, 0xd49, "Neoverse N2"}, {0x41, 0xd4f, "Neoverse V2"},
    {0x41, 0xd84, "Neoverse V3"}, {0x41, 0xd8e, "Neoverse N3"}, {0x42, 0x516, "Vulcan"},
    {0x43, 0x0af, "ThunderX2"},   {0x46, 0x001, "A64FX"},       {0x48, 0xd01, "Kunpeng 920 (TSV110)"},
    {0x4e, 0x003, "Denver 2"},    {0x4e, 0x004, "Carmel"},      {0x51, 0x001, "Oryon"},
    {0x61, 0x022, "M1 Icestorm"}, {0x61, 0x023, "M1 Firestorm"}, {0xc0, 0xac3, "Ampere-1"},
    {0xc0, 0xac4, "Ampere-1a"},
};

const char *cb_arm_implementer_name(unsigned implementer)
{
    for (size_t i = 0; i < sizeof implementers / sizeof implementers[0]; i++)
        if (implementers[i].id == implementer)
            return implementers[i].name;
    return NULL;
}

void cb_midr_decode(uint32_t midr, struct cb_host *h)
{
    unsigned impl = midr >> 24, variant = (midr >> 20) & 0xf, part = (midr >> 4) & 0xfff;
    const char *vendor = cb_arm_implementer_name(impl);
    if (vendor)
        snprintf(h->vendor, sizeof h->vendor, "%s", vendor);
    else
        snprintf(h->vendor, sizeof h->vendor, "arm-0x%02x", impl);
    h->family = (int)variant;
    h->model = (int)part;
    h->stepping = (int)(midr & 0xf);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].impl == impl && parts[i].part == part) {
            snprintf(h->model_name, sizeof h->model_name, "%s", parts[i].name);
            return;
        }
    snprintf(h->model_name, sizeof h->model_name, "implementer 0x%02x part 0x%03x%s", impl, part,
             impl == 0 ? " (software: an emulator or model)" : "");
}
