#include <stddef.h>

#include "concurrency_hooks.h"

// The runtime's declarations (swift/Runtime/Concurrency.h): its hooks use the Swift calling convention.
#if !__has_attribute(swiftcall)
#error "the Swift runtime's hooks need clang's swiftcall calling convention"
#endif
#define SWIFT_CC __attribute__((swiftcall))

typedef SWIFT_CC void (*EnqueueOriginal)(ConcurrencyJob *job);
typedef SWIFT_CC void (*EnqueueHook)(ConcurrencyJob *job, EnqueueOriginal original);
extern EnqueueHook swift_task_enqueueGlobal_hook;

static ConcurrencyEnqueue installed;

static SWIFT_CC void enqueue_global(ConcurrencyJob *job, EnqueueOriginal original) {
    (void)original;
    installed(job);
}

bool concurrency_hooks_install(ConcurrencyEnqueue enqueue) {
    installed = enqueue;
    // Compared and set in one step, like SwiftNIO's takeover: a hook someone else set is left alone.
    EnqueueHook none = NULL;
    return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &none, enqueue_global, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
