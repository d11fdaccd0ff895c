#ifndef VOLUME_GUARD_HEAP_H
#define VOLUME_GUARD_HEAP_H

/// glibc's malloc_trim(0), which SwiftGlibc does not import (<malloc.h>): returns the free pages of
/// every malloc arena to the system; 1 if any were. Without glibc it does nothing and returns 0.
int heap_trim(void);

#endif
