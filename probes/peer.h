/* peer.h — the second thread of a cross-CPU family (xfer, slab's remote
 * frees): pinned to the case's peer CPU, looping in a function of the
 * family's until told to stop.  Its spins pause, and yield now and then, so
 * that verification (run with both threads on whatever CPU the scheduler
 * gives, possibly one) still makes progress. */
#ifndef CB_PROBES_PEER_H
#define CB_PROBES_PEER_H

#include <pthread.h>
#include <stdatomic.h>

struct cb_peer {
    pthread_t thread;
    int started;
    atomic_int stop;
    void (*loop)(struct cb_peer *p, void *arg);
    void *arg;
};

/* Start loop(p, arg) in a thread pinned to cpu (-1: not pinned).  0 or a
 * negative errno (-EINVAL: cannot pin there). */
int cb_peer_start(struct cb_peer *p, int cpu, void (*loop)(struct cb_peer *, void *), void *arg);
/* Tell the loop to return, and join it.  Safe on a peer never started. */
void cb_peer_stop(struct cb_peer *p);

static inline int cb_peer_stopping(struct cb_peer *p)
{
    return atomic_load_explicit(&p->stop, memory_order_relaxed);
}

/* One turn of a wait loop: pause, and every 256 turns (some microseconds) give
 * the CPU away (the other side may share it). */
void cb_spin_yield(void);
static inline void cb_spin(unsigned *turns)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    /* arm64's spin-wait hint, the pause of the kernel's cpu_relax() there */
    __asm__ __volatile__("yield" ::: "memory");
#endif
    if (++*turns >= 256) {
        *turns = 0;
        cb_spin_yield();
    }
}

#endif
