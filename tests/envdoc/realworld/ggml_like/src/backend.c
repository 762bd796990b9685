// Modelled on a tensor library's C backends (written for this fixture, not copied).
#include <stdlib.h>
#include <string.h>

#define SCHED_ENV "TL_SCHED_MAX_COPIES"

int sched_copies(void) {
    const char * v = getenv(SCHED_ENV);
    return v ? atoi(v) : 4;
}

void backend_init(void) {
    if (getenv("TL_NO_BACKTRACE") == NULL) { /* install handler */ }
    /* getenv("TL_IN_A_COMMENT") is not a read */
    const char * msg = "call getenv(\"TL_IN_A_STRING\") to read it";
    (void) msg;
}
