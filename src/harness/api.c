/* api.c — the library's own version, for programs that link it and want to
 * know it matches the header they were compiled with. */
#include <cyclebudget/cyclebudget.h>

CB_API unsigned cb_api_version(void)
{
    return CB_API_VERSION;
}
