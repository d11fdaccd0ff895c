// Every thread's stack, 1 MB instead of glibc's default, the soft stack limit (8 MB): the threads of the
// Swift runtime, libdispatch, SwiftNIO and libpulse are made with no size of their own, so they all take
// this. On a kernel whose transparent huge pages are "always" (Debian's arm64 and amd64 kernels), an 8 MB
// stack that ends on a 2 MB boundary, as one mapped right below a glibc malloc arena (64 MB-aligned) does,
// has the first touch of its top backed by a whole 2 MB huge page: measured in the aarch64 VM, 4,144 kB of
// anonymous memory at rest instead of 2,096 (Tests/InputVM, "memory at rest"). A stack under 2 MB holds no
// aligned 2 MB range, so it never gets one. 1 MB is twice what Apple's platforms give secondary threads,
// where the same Swift code runs.
#define _GNU_SOURCE
#include <pthread.h>

#include "thread_stacks.h"

// Before main, and so before any thread: Swift's runtime makes none of its own before main.
__attribute__((constructor)) static void volume_guard_thread_stacks(void) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) {
        return;
    }
    // A failure leaves glibc's default: more memory, nothing else.
    if (pthread_attr_setstacksize(&attributes, VOLUME_GUARD_THREAD_STACK_SIZE) == 0) {
        pthread_setattr_default_np(&attributes);
    }
    pthread_attr_destroy(&attributes);
}
