/* test_fingerprint.c — the environment reader against /proc and /sys trees
 * made here (a bare-metal Intel box and a cloud guest), the stored form's
 * round trip, and the rule that only known, timing-relevant fields differ. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/cpuclass.h"
#include "host/fingerprint.h"
#include "tap.h"
#include "tree.h"

static const char metal_cpuinfo[] =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"
    "microcode\t: 0xd0003a5\nflags\t\t: fpu vme de pse tsc msr hypervisor_x ssse3\n\n"
    "processor\t: 1\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"
    "microcode\t: 0xd0003b9\nflags\t\t: fpu vme de pse tsc msr ssse3\n\n";

static const char guest_cpuinfo[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14; 96-Core\n"
    "microcode\t: 0xa101148\nflags\t\t: fpu vme tsc hypervisor lahf_lm\n\n"
    "processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14; 96-Core\n"
    "microcode\t: 0xa101148\nflags\t\t: fpu vme tsc hypervisor lahf_lm\n\n";

static void make_metal(const char *d)
{
    tree_put(d, "proc/cpuinfo", metal_cpuinfo);
    tree_put(d, "proc/sys/kernel/perf_event_paranoid", "-1\n");
    tree_put(d, "proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
    tree_put(d, "sys/devices/system/cpu/smt/active", "1\n");
    tree_put(d, "sys/devices/system/cpu/smt/control", "on\n");
    tree_put(d, "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0,32\n");
    tree_put(d, "sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1,33\n");
    tree_put(d, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
    tree_put(d, "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
    tree_put(d, "sys/devices/system/cpu/cpu1/cpufreq/scaling_driver", "intel_pstate\n");
    tree_put(d, "sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
    tree_put(d, "sys/devices/system/cpu/isolated", "2-7\n");
    tree_put(d, "sys/devices/system/cpu/nohz_full", "(null)\n");
}

/* A guest with no cpufreq at all and SMT reported off. */
static void make_guest(const char *d)
{
    tree_put(d, "proc/cpuinfo", guest_cpuinfo);
    tree_put(d, "proc/sys/kernel/perf_event_paranoid", "2\n");
    tree_put(d, "proc/sys/kernel/osrelease", "6.1.0-28-cloud-amd64\n");
    tree_put(d, "sys/devices/system/cpu/smt/active", "0\n");
    tree_put(d, "sys/devices/system/cpu/smt/control", "notsupported\n");
    tree_put(d, "sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1\n");
    tree_put(d, "sys/devices/system/cpu/isolated", "\n");
    tree_put(d, "sys/devices/system/cpu/nohz_full", "\n");
}

/* The value of "label=" in lines, or NULL. */
static const char *line_value(const char *lines, const char *label, char *out, size_t len)
{
    size_t n = strlen(label);
    for (const char *p = lines; *p;) {
        const char *e = strchr(p, '\n');
        if (!e)
            break;
        if ((size_t)(e - p) > n && strncmp(p, label, n) == 0 && p[n] == '=') {
            snprintf(out, len, "%.*s", (int)(e - p - (long)n - 1), p + n + 1);
            return out;
        }
        p = e + 1;
    }
    return NULL;
}

/* The default CPU and a CPU's class, against a hybrid part (P-cores 0-7,
 * E-cores 8-15, node0 and node1) and an arm64 big.LITTLE (capacities). */
static void test_cpuclass(void)
{
    is_int(cb_cpulist_has("0-3,8,10-11", 8), 1, "cpulist: 8 in 0-3,8,10-11");
    is_int(cb_cpulist_has("0-3,8,10-11", 9), 0, "cpulist: 9 not");
    is_int(cb_cpulist_has("0-3,8,10-11", 11), 1, "cpulist: 11 in a range's end");
    is_int(cb_cpulist_has("none", 0), 0, "cpulist: none holds nothing");
    is_int(cb_cpulist_has("", 0), -1, "cpulist: empty is unknown");
    is_int(cb_cpulist_has("0-a", 0), -1, "cpulist: not a list");
    is_int(cb_cpulist_count("0,32"), 2, "cpulist: two siblings");
    is_int(cb_cpulist_count("5"), 1, "cpulist: one");

    char h[] = "/tmp/cb-fp-hybrid-XXXXXX", a[] = "/tmp/cb-fp-arm-XXXXXX";
    ok(mkdtemp(h) && mkdtemp(a), "a hybrid and an arm tree");
    tree_put(h, "sys/devices/cpu_core/cpus", "0-7\n");
    tree_put(h, "sys/devices/cpu_atom/cpus", "8-15\n");
    tree_put(h, "sys/devices/system/cpu/cpu7/node0/x", "");
    tree_put(h, "sys/devices/system/cpu/cpu9/node1/x", "");
    tree_put(h, "sys/devices/system/cpu/cpu7/topology/thread_siblings_list", "6-7\n");
    tree_put(h, "sys/devices/system/cpu/cpu9/topology/thread_siblings_list", "9\n");
    tree_put(h, "sys/devices/system/cpu/isolated", "9\n");
    tree_put(h, "sys/devices/system/cpu/nohz_full", "(null)\n");
    tree_put(h, "proc/cpuinfo", metal_cpuinfo);
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < 16; c++)
        CPU_SET(c, &all);
    is_int(cb_cpu_default(h, &all), 7, "hybrid: the last P-core, not the last CPU (an E-core)");
    cpu_set_t atoms;
    CPU_ZERO(&atoms);
    CPU_SET(9, &atoms);
    CPU_SET(12, &atoms);
    is_int(cb_cpu_default(h, &atoms), 12, "hybrid, only E-cores allowed: the last of them");
    char t[32];
    cb_cpu_core_type(h, 7, t, sizeof t);
    is_str(t, "core", "hybrid: cpu 7 is a P-core");
    cb_cpu_core_type(h, 9, t, sizeof t);
    is_str(t, "atom", "hybrid: cpu 9 is an E-core");
    is_int(cb_cpu_numa_node(h, 9), 1, "cpu 9 is on node 1");
    is_int(cb_cpu_numa_node(h, 3), -1, "cpu 3's node is unknown here");

    struct cb_fingerprint f7, f9;
    char l7[512], l9[512];
    struct cb_sb why = CB_SB_INIT;
    cb_fingerprint_read(&f7, h, 7);
    cb_fingerprint_read(&f9, h, 9);
    cb_fingerprint_cpu_lines(&f7, l7, sizeof l7);
    cb_fingerprint_cpu_lines(&f9, l9, sizeof l9);
    is_str(l7, "pinned cpu core type=core\npinned cpu smt sibling=yes\npinned cpu isolated=no\n"
               "pinned cpu nohz_full=no\npinned cpu numa node=0\n", "cpu 7's class");
    is_str(l9, "pinned cpu core type=atom\npinned cpu smt sibling=no\npinned cpu isolated=yes\n"
               "pinned cpu nohz_full=no\npinned cpu numa node=1\n", "cpu 9's class");
    is_int(cb_fingerprint_diff(l7, l9, &why), 1, "another class differs");
    ok(strstr(why.buf, "core type: 'core' vs 'atom'") && strstr(why.buf, "numa node: '0' vs '1'") &&
           strstr(why.buf, "isolated: 'no' vs 'yes'") && strstr(why.buf, "smt sibling: 'yes' vs 'no'"),
       "and names each part: %s", why.buf);
    char fs[1024];
    cb_fingerprint_format(&f9, fs, sizeof fs);
    struct cb_fingerprint back;
    cb_fingerprint_parse(fs, &back);
    is_str(back.core_type, "atom", "the core type is stored and read back");
    is_str(back.node, "1", "and the node");
    cb_fingerprint_cpu_lines(NULL, l9, sizeof l9);
    is_int(cb_fingerprint_diff(l7, l9, &why), 0, "an older run, class unknown: not a difference");

    tree_put(a, "sys/devices/system/cpu/cpu0/cpu_capacity", "446\n");
    tree_put(a, "sys/devices/system/cpu/cpu1/cpu_capacity", "1024\n");
    tree_put(a, "sys/devices/system/cpu/cpu2/cpu_capacity", "1024\n");
    tree_put(a, "sys/devices/system/cpu/cpu3/cpu_capacity", "446\n");
    CPU_ZERO(&all);
    for (int c = 0; c < 4; c++)
        CPU_SET(c, &all);
    is_int(cb_cpu_default(a, &all), 2, "big.LITTLE: the last big core");
    cb_cpu_core_type(a, 3, t, sizeof t);
    is_str(t, "capacity 446", "a little core's type is its capacity");
    is_int(cb_cpu_default("/nonexistent-cb-root", &all), 3, "nothing known: the last allowed CPU");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", h, a);
    ok(system(cmd) == 0, "clean up the class trees");
    cb_sb_release(&why);
}

/* An arm64 kernel's /proc/cpuinfo (Rockchip RK3588's layout: Cortex-A55
 * r2p0 little cores 0-3, Cortex-A76 r4p0 big ones 4-7): no model name,
 * microcode or flags, the core named per block by its MIDR fields.  The
 * names are Arm's for parts 0xd05 and 0xd0b (TRMs), not the code's table. */
static const char arm_cpuinfo[] =
    "processor\t: 0\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics"
    " cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x2\nCPU part\t: 0xd05\n"
    "CPU revision\t: 0\n\n"
    "processor\t: 4\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics"
    " cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x4\nCPU part\t: 0xd0b\n"
    "CPU revision\t: 0\n\n";

static void test_arm64(void)
{
    char d[] = "/tmp/cb-fp-arm-XXXXXX";
    if (!mkdtemp(d)) {
        ok(0, "arm64 tree");
        return;
    }
    tree_put(d, "proc/cpuinfo", arm_cpuinfo);
    struct cb_fingerprint a;
    is_int(cb_fingerprint_read(&a, d, 4), 0, "arm64: read");
    is_str(a.model, "ARM Cortex-A76 r4p0", "arm64: cpu 4's block is the big core");
    is_str(a.microcode, "", "arm64: no microcode line: unknown");
    is_str(a.hypervisor, "", "arm64: no flags line: hypervisor unknown, not 'no'");
    cb_fingerprint_read(&a, d, -1);
    is_str(a.model, "ARM Cortex-A55 r2p0", "arm64 unpinned: cpu 0's block, the little core");
    cb_fingerprint_read(&a, d, 9);
    is_str(a.model, "ARM Cortex-A55 r2p0", "arm64 unlisted cpu: first block");
#if defined(__aarch64__)
    /* The live file: under qemu-user it is the x86 host's, whose fields
     * must not describe the arm64 run. */
    cb_fingerprint_read(&a, NULL, -1);
    ok(!strstr(a.model, "Intel") && !strstr(a.model, "AMD") && !a.microcode[0],
       "arm64 live: no x86 model or microcode taken (model '%s')", a.model);
#endif
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    ok(system(cmd) == 0, "clean up the arm64 tree");
}

int main(void)
{
    char metal[] = "/tmp/cb-fp-metal-XXXXXX", guest[] = "/tmp/cb-fp-guest-XXXXXX";
    ok(mkdtemp(metal) && mkdtemp(guest), "two trees to read");
    make_metal(metal);
    make_guest(guest);

    /* Bare metal, pinned to cpu 1: every per-CPU field is cpu 1's. */
    struct cb_fingerprint m, g, back;
    is_int(cb_fingerprint_read(&m, metal, 1), 0, "metal: read");
    is_str(m.model, "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "metal: model name");
    is_str(m.microcode, "0xd0003b9", "metal: microcode of cpu 1's block, not cpu 0's");
    is_str(m.hypervisor, "no", "metal: no hypervisor flag ('hypervisor_x' on cpu 0 is another word)");
    is_str(m.smt_active, "1", "metal: SMT active");
    is_str(m.smt_control, "on", "metal: SMT control");
    is_str(m.siblings, "1,33", "metal: cpu 1's siblings");
    is_str(m.governor, "performance", "metal: cpu 1's governor, not cpu 0's powersave");
    is_str(m.driver, "intel_pstate", "metal: driver");
    is_str(m.boost, "off", "metal: intel_pstate no_turbo=1 is boost off");
    is_str(m.paranoid, "-1", "metal: perf_event_paranoid");
    is_str(m.kernel, "6.8.0-45-generic", "metal: kernel release");
    is_str(m.isolated, "2-7", "metal: isolcpus");
    is_str(m.nohz_full, "none", "metal: the kernel's '(null)' nohz_full is none");
    is_str(m.cpu, "1", "metal: pinned cpu");
    is_int(cb_fingerprint_scaling(&m), 0, "metal: performance governor: no scaling");

    /* Unpinned: cpu 0's block and files. */
    struct cb_fingerprint m0;
    cb_fingerprint_read(&m0, metal, -1);
    is_str(m0.microcode, "0xd0003a5", "unpinned: cpu 0's microcode");
    is_str(m0.governor, "powersave", "unpinned: cpu 0's governor");
    is_str(m0.cpu, "", "unpinned: no pinned cpu");
    is_int(cb_fingerprint_scaling(&m0), 1, "powersave: the frequency may scale");

    /* A CPU cpuinfo does not list falls back to the first block. */
    struct cb_fingerprint m9;
    cb_fingerprint_read(&m9, metal, 9);
    is_str(m9.microcode, "0xd0003a5", "unlisted cpu: first block");
    is_str(m9.governor, "", "unlisted cpu: its cpufreq is unknown, not borrowed");

    /* The guest: no cpufreq, hypervisor flag, ';' in the model name. */
    is_int(cb_fingerprint_read(&g, guest, 1), 0, "guest: read");
    is_str(g.hypervisor, "yes", "guest: hypervisor flag");
    is_str(g.model, "AMD EPYC 9B14  96-Core", "guest: ';' in a value becomes ' '");
    is_str(g.governor, "", "guest: no cpufreq: governor unknown");
    is_str(g.boost, "", "guest: boost unknown");
    is_str(g.smt_active, "0", "guest: SMT off");
    is_str(g.isolated, "none", "guest: empty isolated is none, not unknown");
    is_int(cb_fingerprint_scaling(&g), -1, "guest: scaling unknown");

    /* Round trip through the stored form. */
    char s[1024];
    size_t need = cb_fingerprint_format(&m, s, sizeof s);
    is_int(need, strlen(s), "format returns its length");
    ok(strstr(s, "governor=performance;") && strstr(s, "boost=off;") && strstr(s, "cpu=1;"),
       "format holds key=value; pairs: %s", s);
    is_int(cb_fingerprint_parse(s, &back), 0, "parse it back");
    ok(memcmp(&back, &m, sizeof m) == 0, "metal: parse(format(x)) == x");
    cb_fingerprint_format(&g, s, sizeof s);
    cb_fingerprint_parse(s, &back);
    ok(memcmp(&back, &g, sizeof g) == 0, "guest: parse(format(x)) == x");
    char tiny[16];
    is_int(cb_fingerprint_format(&m, tiny, sizeof tiny), need, "a short buffer still gets the needed length");
    is_int(strlen(tiny), sizeof tiny - 1, "and is cut, terminated");
    is_int(cb_fingerprint_parse("governor=ondemand;future_key=x;smt_active=1", &back), 0,
           "unknown keys are skipped, a last pair without ';' is read");
    is_str(back.governor, "ondemand", "parsed governor");
    is_str(back.smt_active, "1", "parsed last pair");
    is_str(back.kernel, "", "missing keys stay unknown");
    is_int(cb_fingerprint_parse("governor", &back), -EINVAL, "a pair without '=' is refused");

    /* The compared lines and the diff rule. */
    char la[512], lb[512], v[64];
    struct cb_sb why = CB_SB_INIT;
    cb_fingerprint_lines(&m, la, sizeof la);
    is_str(line_value(la, "governor", v, sizeof v), "performance", "lines: governor");
    is_str(line_value(la, "smt active", v, sizeof v), "1", "lines: smt active");
    is_str(line_value(la, "boost", v, sizeof v), "off", "lines: boost");
    ok(!line_value(la, "perf_event_paranoid", v, sizeof v), "lines: paranoid is recorded but not compared");
    ok(!line_value(la, "kernel", v, sizeof v), "lines: kernel is compared by the hosts table, not twice");
    is_int(cb_fingerprint_diff(la, la, &why), 0, "same lines: no difference");

    struct cb_fingerprint m2 = m;
    snprintf(m2.governor, sizeof m2.governor, "powersave");
    cb_fingerprint_lines(&m2, lb, sizeof lb);
    is_int(cb_fingerprint_diff(la, lb, &why), 1, "governor changed: differs");
    is_str(why.buf, "governor: 'performance' vs 'powersave'", "and says how");

    m2 = m;
    snprintf(m2.smt_active, sizeof m2.smt_active, "0");
    snprintf(m2.boost, sizeof m2.boost, "on");
    cb_fingerprint_lines(&m2, lb, sizeof lb);
    is_int(cb_fingerprint_diff(la, lb, &why), 1, "SMT and boost changed: differs");
    is_str(why.buf, "smt active: '1' vs '0'; boost: 'off' vs 'on'", "both named, in order");

    m2 = m;
    snprintf(m2.paranoid, sizeof m2.paranoid, "2");
    snprintf(m2.siblings, sizeof m2.siblings, "1");
    cb_fingerprint_lines(&m2, lb, sizeof lb);
    is_int(cb_fingerprint_diff(la, lb, &why), 0, "paranoid and siblings alone: no timing difference");

    /* An older run recorded nothing: its lines are all unknown and differ from none. */
    cb_fingerprint_lines(NULL, lb, sizeof lb);
    is_int(cb_fingerprint_diff(la, lb, &why), 0, "unknown on one side: not a difference");
    is_str(line_value(lb, "governor", v, sizeof v), "", "NULL: the same labels, empty");
    m2 = m;
    m2.governor[0] = '\0';
    cb_fingerprint_lines(&m2, lb, sizeof lb);
    is_int(cb_fingerprint_diff(la, lb, &why), 0, "one unknown governor: not a difference");
    is_int(cb_fingerprint_diff("a=1\nb=2\n", "a=1\n", &why), 1, "a missing line differs");
    is_int(cb_fingerprint_diff("a=1\n", "c=1\n", &why), 1, "another field name differs");

    /* describe and the field list. */
    char d[512];
    cb_fingerprint_describe(&m, d, sizeof d);
    ok(strstr(d, "governor performance (intel_pstate)") && strstr(d, "boost off") &&
           strstr(d, "SMT on (cpu 1 siblings 1,33)") && strstr(d, "isolcpus 2-7"),
       "describe metal: %s", d);
    cb_fingerprint_describe(&g, d, sizeof d);
    ok(strstr(d, "governor unknown (no cpufreq)") && strstr(d, "boost unknown") && strstr(d, "SMT off") &&
           strstr(d, "hypervisor yes"),
       "describe guest: %s", d);
    const char *key, *val;
    size_t nf = 0;
    int saw_gov = 0;
    while ((val = cb_fingerprint_field(&m, nf, &key)) != NULL) {
        if (strcmp(key, "governor") == 0)
            saw_gov = strcmp(val, "performance") == 0;
        nf++;
    }
    is_int(nf, 16, "sixteen fields listed");
    ok(saw_gov, "the field list carries the governor's value");

    /* Nothing there at all. */
    struct cb_fingerprint none;
    is_int(cb_fingerprint_read(&none, "/nonexistent-cb-root", 0), -ENOENT, "an empty sysroot: -ENOENT");
    is_str(none.governor, "", "and every field unknown");

    test_cpuclass();
    test_arm64();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", metal, guest);
    ok(system(cmd) == 0, "clean up");
    cb_sb_release(&why);
    return tap_done();
}
