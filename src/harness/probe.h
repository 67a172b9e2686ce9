/* probe.h — the one small interface a workload family implements.
 *
 * A family is a table of variants plus setup/run/verify/teardown.  The
 * harness owns timing, counters and modes; a probe owns only its buffers and
 * its loops.  Probes know nothing of SQLite or perf_event (DESIGN.md: one
 * direction, probe -> harness -> counters -> store -> report). */
#ifndef CB_PROBE_H
#define CB_PROBE_H

#include <stddef.h>
#include <stdint.h>

enum cb_mode {
    CB_MODE_WARM = 0,   /* the same buffer every time: data hot in cache */
    CB_MODE_COLD = 1,   /* a working set larger than the LLC, walked round-robin */
};

const char *cb_mode_name(enum cb_mode m);
/* "warm" / "cold" -> mode; -1 when neither. */
int cb_mode_parse(const char *s);

enum cb_variant_flags {
    CB_VARIANT_REFERENCE = 1u << 0, /* the family's reference implementation */
    CB_VARIANT_TESTONLY  = 1u << 1, /* compiled into tests only; hidden from list/run */
    CB_VARIANT_VECTOR    = 1u << 2, /* uses SIMD registers: in the kernel it must run
                                       between kernel_fpu_begin() and _end(), whose
                                       save of the user's state reports charge (fpu.h) */
};

struct cb_variant {
    const char *name;     /* "adc-2chain": unique within its family */
    const char *desc;     /* one line: what it is and where it comes from */
    unsigned needs;       /* CB_CPU_* bits that must all be present */
    const void *fn;       /* the family's own function type */
    unsigned flags;       /* CB_VARIANT_* */
    size_t only_size;     /* 0: any size.  Else the one size this variant
                             handles (a fixed-size clear such as memset's
                             "struct192"): the harness must not time it at
                             other sizes, and setup refuses them (-EINVAL) */
};

struct cb_probe;

/* One measurement case: a family, a variant, a size and a mode. */
struct cb_case {
    const struct cb_probe *probe;
    const struct cb_variant *variant;
    size_t size;          /* the size parameter; bytes when probe->unit is "B" */
    enum cb_mode mode;
    size_t cold_bytes;    /* cold mode: working set to spread over (> LLC) */
    uint64_t bytes_per_op;/* bytes touched per operation, for B/cycle; 0 = n/a.
                             Preset to size for byte probes; setup may change it */
    void *priv;           /* the probe's state, owned by setup/teardown */
    int peer_cpu;         /* a second CPU this process may use (cpupair.h), for the
                             cross-CPU families; -1 none: their setup returns -ENODEV */
    char pair[64];        /* set by such a setup: the pair it ran on, stored with
                             the case ("cpu 0 -> cpu 1 (cores of one socket)") */
    volatile uint64_t sink; /* fold results in here so no work is optimised away */
    unsigned buf_pages;   /* warm buffers sit this many 4 KiB pages into their
                             mapping (workset.h); ab varies it by round */
};

/* A verifier's finding.  ok is 1 only when every checked input matched. */
struct cb_verdict {
    int ok;
    uint64_t checked;     /* how many inputs were compared */
    char detail[256];     /* the first differing input, for the BAD line */
};

/* How a family's variant is called, where the variants are plain
 * functions: what plugins need to add a variant to the family (plugin.c),
 * and what the guard-page check (plugin_verify.c) needs to place its
 * buffers and check its result.  The prototypes are the public header's
 * (cyclebudget.h: cb_csum_fn, cb_copy_fn, cb_csum_copy_fn, cb_memset_fn). */
enum cb_call {
    CB_CALL_NONE = 0,   /* the variants run in the family's own loop: no plugin adds to it */
    CB_CALL_SUM,        /* sum = f(src, len, sum): reads src; checked against RFC 1071 */
    CB_CALL_COPY,       /* f(dst, src, len): reads src, writes dst */
    CB_CALL_COPY_SUM,   /* sum = f(src, dst, len, sum): both, and the sum */
    CB_CALL_FILL,       /* f(dst, c, len): writes dst */
};

static inline int cb_call_reads(enum cb_call c) { return c != CB_CALL_NONE && c != CB_CALL_FILL; }
static inline int cb_call_writes(enum cb_call c) { return c != CB_CALL_NONE && c != CB_CALL_SUM; }
static inline int cb_call_sums(enum cb_call c) { return c == CB_CALL_SUM || c == CB_CALL_COPY_SUM; }

/* What a family is to the layers that read its runs back (report/,
 * analysis/, cmd/): they look the family up by name (cb_probe_find) and read
 * these fields, so that src/ names no family. */
enum cb_probe_shape {
    CB_SHAPE_TWO_BUFFERS = 1u << 0, /* reads one buffer of bytes_per_op and writes another:
                                       the working set is twice the bytes */
    CB_SHAPE_STORES      = 1u << 1, /* writes its bytes: the store ceiling applies */
};

/* What one operation is charged to in the per-packet budget (budget.h). */
enum cb_charge_by {
    CB_CHARGE_BY_PACKET = 0, /* one per packet: the chosen frame; a byte size past the
                                MTU, the MTU frames of a GSO packet */
    CB_CHARGE_BY_BYTES,      /* S bytes of one packet: the larger of the frame and S + the
                                Ethernet overhead; past the MTU, GSO frames */
    CB_CHARGE_BY_OBJECT,     /* one object per packet whatever its bytes: the frame */
};

/* The family's chart in the HTML report, beside the case tables. */
enum cb_chart_kind {
    CB_CHART_NONE = 0,
    CB_CHART_THROUGHPUT,     /* bytes per cycle against size, a line per variant */
    CB_CHART_BULK,           /* per op against N of its "bulk-N" variants, a line per size */
    CB_CHART_BARS,           /* per op, variants ranked, set against the baseline variant */
};

struct cb_chart {
    enum cb_chart_kind kind;
    const char *title;       /* after "NAME: " in the heading (BULK, BARS) */
    const char *lead;        /* the paragraph under it, HTML (BULK, BARS) */
    const char *baseline;    /* BARS: the variant the others are set against, or NULL */
};

/* One case of `kernel run` that times the kernel's own function beside this
 * family's user-space models (kmod/, report/inkernel.c). */
struct cb_kernel_twin {
    const char *func;        /* the kernel function, the case's variant: "csum_partial";
                                with counts, the prefix of "kmem_cache_alloc_bulk-16" */
    uint32_t kfunc;          /* enum cb_kmod_func (kmod/cb_kmod_uapi.h) */
    uint32_t size;           /* 0: the family's byte sizes (-s, else the quick suite's),
                                warm and cold; else this one size, warm only */
    const uint32_t *counts;  /* a bulk function: one case per count, 0-terminated */
    const char *models[3];   /* the user-space variants set beside it, NULL-ended;
                                "bulk-*": the bulk variant of the same count */
    /* Optional: the models by the kernel release ("6.8.0-45-generic"),
     * where the kernel's algorithm changed between releases. */
    void (*models_for)(const char *release, const char *out[3]);
    const char *why;         /* what the models stand for */
    /* Optional: the BPF helper that calls func ("bpf_csum_diff"): a case of
     * `bpf run` with that variant is set beside the same models. */
    const char *bpf_helper;
};

struct cb_probe {
    const char *name;     /* what -p and the store call it; unique */
    const char *desc;
    const char *unit;     /* what size counts: "B" for bytes, "obj" ... */
    const char *op;       /* what one operation is: "call", "packet", "object" */
    const struct cb_variant *variants;
    size_t nvariants;
    const size_t *sizes;  /* default sizes, 0-terminated */

    /* Allocate and fill buffers for c->size and c->mode.  Returns 0 or a
     * negative errno.  Not timed. */
    int (*setup)(struct cb_case *c);
    /* The timed batch: exactly iters operations of c->variant, no
     * allocation, no I/O, no printing.  iters may be 0 (the empty batch
     * the harness measures to subtract its own overhead). */
    void (*run)(struct cb_case *c, uint64_t iters);
    /* Compare variant v against the family's reference on its own inputs
     * (random data, every length and misalignment the family defines).
     * Fills *out; returns 0 when it ran (whatever the verdict), or a
     * negative errno when it could not run (e.g. -ENOMEM). */
    int (*verify)(const struct cb_variant *v, struct cb_verdict *out);
    void (*teardown)(struct cb_case *c);

    /* The quick suite `cyclebudget run` collects with no -p: the sizes and
     * variant globs (comma-separated; NULL: all variants) that answer the
     * family's main question in a few seconds.  A family with no
     * suite_sizes is not in the quick suite.  -p FAMILY runs all of .sizes. */
    const size_t *suite_sizes;
    const char *suite_variants;

    /* Optional: what one operation of c costs by construction, in core
     * cycles (the synthetic chain: its length).  Only the fake clock
     * (fakeclock.h) uses it, to model the work; NULL: a size-based model. */
    double (*nominal)(const struct cb_case *c);

    /* How a variant is called (enum cb_call); CB_CALL_NONE: not pluggable. */
    enum cb_call call;

    /* What the reading layers need; every field may be left zero. */
    unsigned shape;                 /* enum cb_probe_shape bits */
    enum cb_charge_by charge;
    struct cb_chart chart;
    /* A fused family: the two families whose work it does at once, for the
     * report's table of the fused variant against the two apart. */
    const char *fuses[2];
    const struct cb_kernel_twin *kernel;   /* its cases in `kernel run` */
    size_t nkernel;
};


/* The registry: every family linked into the binary. */
extern const struct cb_probe *const cb_probes[];
extern const size_t cb_nprobes;

/* What commands see: the built-in families, with plugins' variants added
 * (registry.c), then the plugins' own families.  i < cb_probe_count(). */
size_t cb_probe_count(void);
const struct cb_probe *cb_probe_at(size_t i);
/* Register a plugin's family (plugin.c): it replaces the family of the same
 * name, built-in or added before.  p must live as long as the process.
 * 0, or -ENOSPC when the list is full. */
int cb_registry_add(const struct cb_probe *p);

const struct cb_probe *cb_probe_find(const char *name);
/* Namespaces (ab's two builds of one plugin): a family registered in ns
 * is seen only through these, never by cb_probe_find or cb_probe_at.
 * cb_probe_find_ns falls back to the family commands see; cb_probe_ns is a
 * registered family's namespace (NULL for the common one). */
int cb_registry_add_ns(const char *ns, const struct cb_probe *p);
const struct cb_probe *cb_probe_find_ns(const char *ns, const char *name);
const char *cb_probe_ns(const struct cb_probe *p);
/* Every registered family, in every namespace, for finding the owner of a
 * variant: i < cb_registry_size(). */
size_t cb_registry_size(void);
const struct cb_probe *cb_registry_any(size_t i);
const struct cb_variant *cb_variant_find(const struct cb_probe *p, const char *name);
/* 1 when this CPU has everything v needs. */
int cb_variant_runnable(const struct cb_variant *v, unsigned cpu_features);

#endif
