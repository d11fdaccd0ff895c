#ifndef THREAD_STACKS_H
#define THREAD_STACKS_H

/// The stack size every thread of the process gets unless its creator asks for another: set before `main`
/// by thread_stacks.c, which has no function to call (linking the target in is what takes effect).
#define VOLUME_GUARD_THREAD_STACK_SIZE (1024 * 1024)

#endif
