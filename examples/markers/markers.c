/* markers.c — an example of region markers: the cost of two pieces of a
 * loop that cannot be cut into functions, measured in place.
 *
 *   cc -O2 $(pkg-config --cflags cyclebudget) -o markers markers.c \
 *       $(pkg-config --libs cyclebudget)
 *   CYCLEBUDGET_DB=markers.db ./markers
 *   cyclebudget report latest --db markers.db
 *
 * Without CYCLEBUDGET_DB the markers are off and cost a branch each. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cyclebudget/cyclebudget.h>

int main(void)
{
    static unsigned char pkt[1500];
    uint64_t sum = 0;
    cb_marker_init();
    for (int i = 0; i < 2000; i++) {
        memset(pkt, i, sizeof pkt);

        cb_region_begin("header");
        for (int k = 0; k < 20; k += 2)   /* an IPv4 header's words */
            sum += (uint64_t)pkt[k] << 8 | pkt[k + 1];
        cb_region_end("header");

        cb_region_begin("payload");
        for (size_t k = 20; k + 1 < sizeof pkt; k += 2)
            sum += (uint64_t)pkt[k] << 8 | pkt[k + 1];
        cb_region_end("payload");
    }
    cb_marker_close();
    printf("sum %llu\n", (unsigned long long)sum);
    return 0;
}
