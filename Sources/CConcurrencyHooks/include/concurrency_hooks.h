#ifndef VOLUME_GUARD_CONCURRENCY_HOOKS_H
#define VOLUME_GUARD_CONCURRENCY_HOOKS_H

#include <stdbool.h>

/// A job of the Swift concurrency runtime (`swift::Job *`); Swift sees it as an `UnownedJob`.
typedef struct ConcurrencyJob ConcurrencyJob;

/// Runs `job` on some thread, soon.
typedef void (*ConcurrencyEnqueue)(ConcurrencyJob *_Nonnull job);

/// Points the Swift runtime's hook for its global executor (`swift_task_enqueueGlobal_hook`, declared in
/// swift/Runtime/Concurrency.h) at `enqueue`. The hook is set directly, not looked up with `dlsym`: an
/// executable linked with the static Swift runtime exports none of the runtime's symbols. Returns false,
/// and leaves the runtime's hook as it is, if one is already set. Call it before any task runs, from one
/// thread.
bool concurrency_hooks_install(ConcurrencyEnqueue _Nonnull enqueue);

#endif
