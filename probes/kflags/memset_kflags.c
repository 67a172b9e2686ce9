/* kflags/memset_kflags.c — the struct clears of memset.c with the kernel's code
 * generation (kflags.h): the same C, compiled without SSE.  Byte arrays,
 * so valid at any address, as memset.c's. */
#include "probes/kflags/kflags.h"

struct kf_skb192 { unsigned char b[192]; };
struct kf_skb200 { unsigned char b[200]; };
struct kf_skb256 { unsigned char b[256]; };

void cb_memset_struct192_kflags(void *dst, int c, size_t n)
{
    (void)c, (void)n;
    *(struct kf_skb192 *)dst = (struct kf_skb192){0};
}

void cb_memset_struct200_kflags(void *dst, int c, size_t n)
{
    (void)c, (void)n;
    *(struct kf_skb200 *)dst = (struct kf_skb200){0};
}

void cb_memset_struct256_kflags(void *dst, int c, size_t n)
{
    (void)c, (void)n;
    *(struct kf_skb256 *)dst = (struct kf_skb256){0};
}
