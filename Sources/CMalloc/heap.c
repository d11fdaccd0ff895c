#include <stdlib.h>  // defines __GLIBC__ on glibc

#include "heap.h"

#ifdef __GLIBC__
#include <malloc.h>

int heap_trim(void) { return malloc_trim(0); }
#else
int heap_trim(void) { return 0; }
#endif
