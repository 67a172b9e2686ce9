/* test_kmod.c — the refusals of kernel run that read the machine (kmod.h):
 * a kernel that loads only signed modules, read from a made-up /proc and
 * /sys tree, and the kernel build tree that must hold a Makefile. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/kmod.h"
#include "tap.h"
#include "tree.h"

static int signing(const char *root, char *why, size_t len)
{
    struct cb_sb sb = CB_SB_INIT;
    int rc = cb_kmod_check_signing(root, &sb);
    snprintf(why, len, "%s", sb.buf);
    cb_sb_release(&sb);
    return rc;
}

int main(void)
{
    char root[] = "/tmp/cb-test-kmod.XXXXXX", why[1024];
    if (!mkdtemp(root))
        return 1;
    is_int(signing(root, why, sizeof why), -EACCES, "no /proc/modules: the kernel loads none");
    ok(strstr(why, "loads no modules at all"), "... saying so: %s", why);

    struct cb_sb mb = CB_SB_INIT;
    is_int(cb_kmod_check_modules(root, "6.18.0-t", &mb), -ENOSYS,
           "check_modules, no /proc/modules: refused");
    ok(strstr(mb.buf, "loads no modules (no /proc/modules, none loaded in /sys/module)") &&
       strstr(mb.buf, "bpf run") && !strstr(mb.buf, "headers"),
       "... saying what it found and pointing to bpf run, not to headers: %s", mb.buf);
    cb_sb_reset(&mb);
    tree_put(root, "boot/config-6.18.0-t", "CONFIG_BPF=y\n# CONFIG_MODULES is not set\n");
    tree_put(root, "proc/modules", "");
    is_int(cb_kmod_check_modules(root, "6.18.0-t", &mb), -ENOSYS,
           "/proc/modules, but the config says CONFIG_MODULES is not set: refused");
    ok(strstr(mb.buf, "/boot/config-6.18.0-t says CONFIG_MODULES is not set"), "... naming the config: %s",
       mb.buf);
    cb_sb_reset(&mb);
    tree_put(root, "boot/config-6.18.0-t", "CONFIG_MODULES=y\n");
    tree_put(root, "sys/module/veth/initstate", "live\n");
    is_int(cb_kmod_check_modules(root, "6.18.0-t", &mb), 0, "CONFIG_MODULES=y and /proc/modules: taken");
    is_int(cb_kmod_check_modules(root, "6.1.0-other", &mb), 0, "no config for that release: /proc/modules decides");
    cb_sb_release(&mb);
    is_int(signing(root, why, sizeof why), 0, "no lockdown file, no sig_enforce: unsigned modules load");
    tree_put(root, "sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
    tree_put(root, "sys/module/module/parameters/sig_enforce", "N\n");
    tree_put(root, "proc/sys/kernel/modules_disabled", "0\n");
    is_int(signing(root, why, sizeof why), 0, "lockdown [none], sig_enforce N: they load");
    tree_put(root, "sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
    is_int(signing(root, why, sizeof why), -EACCES, "lockdown [integrity]: refused");
    ok(strstr(why, "locked down") && strstr(why, "MOK"), "... saying so and how to sign: %s", why);
    tree_put(root, "sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
    tree_put(root, "sys/module/module/parameters/sig_enforce", "Y\n");
    is_int(signing(root, why, sizeof why), -EACCES, "module.sig_enforce=Y: refused");
    ok(strstr(why, "sig_enforce") && strstr(why, "sign"), "... saying so: %s", why);
    tree_put(root, "proc/sys/kernel/modules_disabled", "1\n");
    is_int(signing(root, why, sizeof why), -EACCES, "kernel.modules_disabled=1: refused first");
    ok(strstr(why, "modules_disabled") && strstr(why, "reboot"), "... saying a reboot resets it: %s", why);

    struct cb_sb sb = CB_SB_INIT;
    char out[4096];
    is_int(cb_kmod_kdir(root, out, sizeof out, &sb), -ENOENT, "--kdir without a Makefile: -ENOENT");
    ok(strstr(sb.buf, "holds no kernel build tree"), "... saying so: %s", sb.buf);
    cb_sb_reset(&sb);
    tree_put(root, "Makefile", "# kbuild\n");
    is_int(cb_kmod_kdir(root, out, sizeof out, &sb), 0, "--kdir with a Makefile: taken");
    is_str(out, root, "... as given");
    cb_sb_release(&sb);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        return 1;
    return tap_done();
}
