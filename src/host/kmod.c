/* kmod.c — building, loading and talking to the kernel module (kmod.h). */
#define _GNU_SOURCE
#include "host/kmod.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cb_kmod_paths.h"
#include "kmod/cb_kmod_uapi.h"

#define CAP_SYS_MODULE_BIT 16

void cb_kmod_release(char *out, size_t len)
{
    struct utsname u;
    snprintf(out, len, "%s", uname(&u) == 0 ? u.release : "unknown");
}

/* The first line of path (trailing newline cut), or -errno. */
static int read_line(const char *root, const char *path, char *out, size_t len)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", root ? root : "", path);
    FILE *f = fopen(full, "r");
    if (!f)
        return -errno;
    int ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -EIO;
    out[strcspn(out, "\n")] = 0;
    return 0;
}

int cb_kmod_check_root(struct cb_sb *why)
{
    char line[256];
    unsigned long long eff = 0;
    FILE *f = fopen("/proc/self/status", "r");
    int have = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &eff) == 1)
            have = 1;
    if (f)
        fclose(f);
    if (have ? (eff >> CAP_SYS_MODULE_BIT) & 1 : geteuid() == 0)
        return 0;
    cb_sb_addf(why, "loading a kernel module needs root (CAP_SYS_MODULE), and this process "
                    "(uid %u) lacks it: run it with sudo", (unsigned)geteuid());
    return -EPERM;
}

/* What the kernel's own .config says of CONFIG_MODULES: 1 set, 0 not set,
 * -1 unknown (no config where the distributions keep it, nor /proc's). */
static int config_modules(const char *root, const char *rel, char *where, size_t len)
{
    char path[512], line[256];
    const char *const paths[] = {"/boot/config-%s", "/lib/modules/%s/config"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char rel_path[300];
        snprintf(rel_path, sizeof rel_path, paths[i], rel);
        snprintf(path, sizeof path, "%s%s", root ? root : "", rel_path);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int set = -1;
        while (set < 0 && fgets(line, sizeof line, f)) {
            if (strncmp(line, "CONFIG_MODULES=y", 16) == 0)
                set = 1;
            else if (strncmp(line, "# CONFIG_MODULES is not set", 27) == 0)
                set = 0;
        }
        fclose(f);
        snprintf(where, len, "%s", rel_path);
        if (set >= 0)
            return set;
    }
    return -1;
}

/* A module of /sys/module that was loaded, not built in: it has an
 * initstate (built-in ones carry only their parameters). */
static int any_loaded_module(const char *root)
{
    char dir[512], p[1024];
    snprintf(dir, sizeof dir, "%s/sys/module", root ? root : "");
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        snprintf(p, sizeof p, "%s/%s/initstate", dir, e->d_name);
        found = e->d_name[0] != '.' && access(p, F_OK) == 0;
    }
    if (d)
        closedir(d);
    return found;
}

int cb_kmod_check_modules(const char *root, const char *rel, struct cb_sb *why)
{
    char mods[512], where[300] = "";
    snprintf(mods, sizeof mods, "%s/proc/modules", root ? root : "");
    int proc = access(mods, F_OK) == 0;
    int config = config_modules(root, rel, where, sizeof where);
    if (proc && config != 0)
        return 0;
    struct cb_sb seen = CB_SB_INIT;
    if (!proc)
        cb_sb_adds(&seen, "no /proc/modules");
    if (config == 0)
        cb_sb_addf(&seen, "%s%s says CONFIG_MODULES is not set", proc ? "" : ", ", where);
    if (!any_loaded_module(root))
        cb_sb_adds(&seen, ", none loaded in /sys/module");
    cb_sb_addf(why, "this kernel (%s) loads no modules (%s), so kernel run cannot work here: "
                    "'cyclebudget bpf run' measures inside this kernel through BPF, with no "
                    "module", rel, seen.buf);
    cb_sb_release(&seen);
    return -ENOSYS;
}

int cb_kmod_check_signing(const char *root, struct cb_sb *why)
{
    char line[256], mods[512];
    /* /proc/modules is there whenever the kernel loads modules at all
     * (CONFIG_MODULES); a sandboxed kernel (gVisor, some microVMs) has none. */
    snprintf(mods, sizeof mods, "%s/proc/modules", root ? root : "");
    if (access(mods, F_OK) != 0) {
        cb_sb_adds(why, "this kernel loads no modules at all (no /proc/modules: built without "
                        "CONFIG_MODULES, or a sandbox's kernel): run on a machine's own kernel");
        return -EACCES;
    }
    if (read_line(root, "/proc/sys/kernel/modules_disabled", line, sizeof line) == 0 &&
        strcmp(line, "1") == 0) {
        cb_sb_adds(why, "this kernel loads no more modules (kernel.modules_disabled = 1, which "
                        "only a reboot resets): boot without it and run again");
        return -EACCES;
    }
    if (read_line(root, "/sys/kernel/security/lockdown", line, sizeof line) == 0 &&
        !strstr(line, "[none]") && strchr(line, '[')) {
        cb_sb_addf(why, "the kernel is locked down (%s: secure boot?) and loads only signed "
                        "modules: sign kmod/cb_kmod.ko with a key enrolled in MOK, or turn "
                        "secure boot off, then run again", line);
        return -EACCES;
    }
    if (read_line(root, "/sys/module/module/parameters/sig_enforce", line, sizeof line) == 0 &&
        line[0] == 'Y') {
        cb_sb_adds(why, "the kernel enforces module signatures (module.sig_enforce=Y): sign "
                        "the module with a key the kernel trusts, or boot without "
                        "module.sig_enforce, then run again");
        return -EACCES;
    }
    return 0;
}

int cb_kmod_kdir(const char *kdir, char *out, size_t len, struct cb_sb *why)
{
    char rel[128], mk[4200];
    cb_kmod_release(rel, sizeof rel);
    if (kdir && *kdir)
        snprintf(out, len, "%s", kdir);
    else
        snprintf(out, len, "/lib/modules/%s/build", rel);
    snprintf(mk, sizeof mk, "%s/Makefile", out);
    if (access(mk, R_OK) == 0)
        return 0;
    if (kdir && *kdir)
        cb_sb_addf(why, "--kdir %s holds no kernel build tree (no Makefile): give the headers' "
                        "folder, e.g. /usr/src/linux-headers-%s", kdir, rel);
    else
        cb_sb_addf(why, "no kernel headers for the running kernel %s (%s is missing): install "
                        "them (Debian/Ubuntu: apt-get install linux-headers-%s; Fedora: dnf "
                        "install kernel-devel-%s) or give --kdir", rel, out, rel, rel);
    return -ENOENT;
}

static int has_kbuild(const char *dir)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/Kbuild", dir);
    return access(p, R_OK) == 0;
}

int cb_kmod_source_dir(char *out, size_t len, struct cb_sb *why)
{
    const char *env = getenv("CB_KMOD_DIR");
    const char *cand[] = {env && *env ? env : NULL, CB_KMOD_SRCDIR, CB_KMOD_DATADIR};
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
        if (cand[i] && has_kbuild(cand[i])) {
            snprintf(out, len, "%s", cand[i]);
            return 0;
        }
    cb_sb_addf(why, "the module's sources are not in %s nor %s: reinstall cyclebudget, or set "
                    "CB_KMOD_DIR to a copy of kmod/", CB_KMOD_SRCDIR, CB_KMOD_DATADIR);
    return -ENOENT;
}

/* Run argv with stdout and stderr into log; its exit status, or -errno. */
static int run_logged(char *const argv[], const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The last lines of a log, joined with " | ". */
static void log_tail(const char *log, int lines, struct cb_sb *why)
{
    char buf[8192];
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    fseek(f, end > (long)sizeof buf - 1 ? end - (long)sizeof buf + 1 : 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    while (n && buf[n - 1] == '\n')
        buf[--n] = 0;
    char *p = buf + n;
    for (int k = 0; p > buf && k < lines; p--)
        if (p[-1] == '\n' && ++k == lines)
            break;
    for (char *c = p; *c; c++)
        if (*c == '\n')
            *c = '|';
    cb_sb_adds(why, p);
}

int cb_kmod_build(const char *srcdir, const char *kdir, char *ko, size_t kolen, char *workdir,
                  size_t wlen, struct cb_sb *why)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, wlen, "%s/cyclebudget-kmod.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(workdir)) {
        cb_sb_addf(why, "cannot make a build folder %s: %s", workdir, strerror(errno));
        workdir[0] = 0;
        return -errno;
    }
    static const char *const files[] = {"Kbuild", "cb_kmod.c", "cb_kmod_uapi.h"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char from[4200], to[4200], log[4200];
        snprintf(from, sizeof from, "%s/%s", srcdir, files[i]);
        snprintf(to, sizeof to, "%s/", workdir);
        snprintf(log, sizeof log, "%s/copy.log", workdir);
        char *cp[] = {"cp", from, to, NULL};
        if (run_logged(cp, log) != 0) {
            cb_sb_addf(why, "cannot copy %s into %s", from, workdir);
            return -EIO;
        }
    }
    char mflag[4300], kflag[4300], log[4200];
    snprintf(mflag, sizeof mflag, "M=%s", workdir);
    snprintf(kflag, sizeof kflag, "%s", kdir);
    snprintf(log, sizeof log, "%s/build.log", workdir);
    char *mk[] = {"make", "-C", kflag, mflag, "modules", NULL};
    int rc = run_logged(mk, log);
    snprintf(ko, kolen, "%s/cb_kmod.ko", workdir);
    if (rc != 0 || access(ko, R_OK) != 0) {
        cb_sb_addf(why, "the module did not build against %s (make exit %d; %s): ", kdir, rc, log);
        log_tail(log, 4, why);
        return -EIO;
    }
    return 0;
}

void cb_kmod_cleanup(const char *workdir)
{
    /* Only a folder cb_kmod_build made: never an rm -rf of anything else. */
    const char *base = workdir ? strrchr(workdir, '/') : NULL;
    if (!base || strncmp(base, "/cyclebudget-kmod.", 18) != 0)
        return;
    char *rm[] = {"rm", "-rf", (char *)workdir, NULL};
    (void)run_logged(rm, "/dev/null");
}

int cb_kmod_unload(struct cb_sb *why)
{
    if (syscall(SYS_delete_module, CB_KMOD_MODNAME, O_NONBLOCK) == 0 || errno == ENOENT)
        return 0;
    int e = errno;
    cb_sb_addf(why, "cannot unload %s: %s (rmmod %s)", CB_KMOD_MODNAME, strerror(e),
               CB_KMOD_MODNAME);
    return -e;
}

int cb_kmod_load(const char *path, struct cb_sb *why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cb_sb_addf(why, "cannot open the module %s: %s", path, strerror(errno));
        return -errno;
    }
    /* A module left loaded by a run that was killed: unload it first. */
    struct stat sb;
    if (stat("/sys/module/" CB_KMOD_MODNAME, &sb) == 0)
        (void)cb_kmod_unload(why);
    int rc = (int)syscall(SYS_finit_module, fd, "", 0);
    int e = errno;
    close(fd);
    if (rc == 0)
        return 0;
    if (e == EKEYREJECTED || e == EPERM)
        cb_sb_addf(why, "the kernel refused the module %s (%s): it loads only signed modules "
                        "(lockdown or module.sig_enforce), or this process may not load any: "
                        "sign it or run as root without lockdown", path, strerror(e));
    else if (e == ENOSYS)
        cb_sb_addf(why, "this kernel (or the sandbox it runs in) loads no modules (finit_module: "
                        "%s): run on a machine's own kernel, built with CONFIG_MODULES", strerror(e));
    else if (e == ENOEXEC || e == EINVAL)
        cb_sb_addf(why, "the kernel refused the module %s (%s): it was built for another kernel "
                        "(see dmesg); build it against this one's headers (--kdir)", path,
                   strerror(e));
    else
        cb_sb_addf(why, "cannot load the module %s: %s (see dmesg)", path, strerror(e));
    return -e;
}

int cb_kmod_open(struct cb_sb *why)
{
    int fd = open("/dev/" CB_KMOD_DEVNAME, O_RDWR | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    /* No devtmpfs (a minimal initramfs, some containers): make a node. */
    char dev[64];
    unsigned maj, min;
    if (read_line(NULL, "/sys/class/misc/" CB_KMOD_DEVNAME "/dev", dev, sizeof dev) == 0 &&
        sscanf(dev, "%u:%u", &maj, &min) == 2) {
        char node[] = "/tmp/cyclebudget-dev.XXXXXX";
        if (mkdtemp(node)) {
            char path[64];
            snprintf(path, sizeof path, "%s/%s", node, CB_KMOD_DEVNAME);
            if (mknod(path, S_IFCHR | 0600, makedev(maj, min)) == 0)
                fd = open(path, O_RDWR | O_CLOEXEC);
            unlink(path);
            rmdir(node);
            if (fd >= 0)
                return fd;
        }
    }
    cb_sb_addf(why, "the module loaded but /dev/%s cannot be opened: %s", CB_KMOD_DEVNAME,
               strerror(errno));
    return -ENODEV;
}
