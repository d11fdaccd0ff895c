#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, for a program with a main of its own: SwiftPM gives every executable one (and
// links it as the program's entry), so libFuzzer's own main is never used.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
