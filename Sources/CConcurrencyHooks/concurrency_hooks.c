#include "concurrency_hooks.h"

// The runtime's declarations (swift/Runtime/Concurrency.h): its hooks use the Swift calling convention.
#define SWIFT_CC __attribute__((swiftcall))

typedef SWIFT_CC void (*EnqueueOriginal)(ConcurrencyJob *job);
extern SWIFT_CC void (*swift_task_enqueueGlobal_hook)(ConcurrencyJob *job, EnqueueOriginal original);

static ConcurrencyEnqueue installed;

static SWIFT_CC void enqueue_global(ConcurrencyJob *job, EnqueueOriginal original) {
    (void)original;
    installed(job);
}

bool concurrency_hooks_install(ConcurrencyEnqueue enqueue) {
    if (swift_task_enqueueGlobal_hook) return false;
    installed = enqueue;
    swift_task_enqueueGlobal_hook = enqueue_global;
    return true;
}
