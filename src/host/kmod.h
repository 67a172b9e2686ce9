/* kmod.h — building, loading and talking to cyclebudget's kernel module
 * (kmod/), and every reason it cannot be done here.
 *
 * `kernel run` refuses before it writes anything when the module could not
 * be loaded anyway: not root, no kernel headers for the running kernel, a
 * kernel that loads only signed modules (lockdown, module.sig_enforce).
 * Each refusal is one line that says what to do, and -EPERM/-ENOENT/-EACCES
 * so that the command can exit 2.  The module's sources are found in
 * $CB_KMOD_DIR, else the source tree this binary was built from, else the
 * data directory `make install` put them in. */
#ifndef CB_KMOD_H
#define CB_KMOD_H

#include <stddef.h>

#include "util/strbuf.h"

/* The running kernel's release (uname -r). */
void cb_kmod_release(char *out, size_t len);

/* 0 when this process may load modules (CAP_SYS_MODULE, in practice root);
 * -EPERM with the remedy in why. */
int cb_kmod_check_root(struct cb_sb *why);

/* 0 when the kernel rel (uname -r) loads modules at all; -ENOSYS when it
 * cannot: no /proc/modules, or its .config (/boot/config-REL) says
 * "# CONFIG_MODULES is not set".  The message says what was found and that
 * `bpf run` measures inside such a kernel.  root as below. */
int cb_kmod_check_modules(const char *root, const char *rel, struct cb_sb *why);

/* 0 when the kernel loads an unsigned module; -EACCES with the reason and
 * the remedy when it loads none (no /proc/modules, modules_disabled), when
 * lockdown is on or signatures are enforced.  root is the filesystem root
 * to read /proc and /sys from ("" or NULL for "/"; tests). */
int cb_kmod_check_signing(const char *root, struct cb_sb *why);

/* The kernel build tree: kdir when given, else /lib/modules/RELEASE/build.
 * 0 when it holds a kbuild Makefile; -ENOENT with the remedy. */
int cb_kmod_kdir(const char *kdir, char *out, size_t len, struct cb_sb *why);

/* The folder with the module's Kbuild and sources: -ENOENT when none. */
int cb_kmod_source_dir(char *out, size_t len, struct cb_sb *why);

/* Copy the sources into a fresh folder under TMPDIR and build them against
 * kdir; ko gets the module's path, workdir the folder (for
 * cb_kmod_cleanup).  -EIO with make's last lines in why when it fails. */
int cb_kmod_build(const char *srcdir, const char *kdir, char *ko, size_t kolen, char *workdir,
                  size_t wlen, struct cb_sb *why);
void cb_kmod_cleanup(const char *workdir);

/* finit_module(2) of path; unload with delete_module(2).  A module of the
 * same name left by an earlier run that died is unloaded first. */
int cb_kmod_load(const char *path, struct cb_sb *why);
int cb_kmod_unload(struct cb_sb *why);

/* The module's device, opened read-write: /dev/cyclebudget, or a node made
 * in a temporary folder from /sys/class/misc/cyclebudget/dev where devtmpfs
 * made none.  The fd, or a negative errno with why. */
int cb_kmod_open(struct cb_sb *why);

#endif
