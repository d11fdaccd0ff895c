// SwiftPM builds a C target from its sources, and the functions are all static inline in the header:
// this file includes it so that it is compiled, with the kernel's headers, on every build.
#include "cevdev.h"
