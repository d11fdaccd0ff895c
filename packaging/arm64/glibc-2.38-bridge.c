// The glibc 2.38 functions that Debian sid's static Swift runtime (swiftlang 6.2.3: libswiftCore.a,
// libdispatch.a, Foundation's archives) calls, defined on top of what glibc 2.36 has, so that the arm64
// executable links against a bookworm sysroot and runs on bookworm (glibc 2.36) and trixie (2.41) alike.
// scripts/arm64-build compiles it and links it into the executable; docs/DESIGN.md, "The arm64 build",
// says why this and not a newer sysroot.
//
// glibc 2.38 compiles strtol and sscanf calls of C23 programs (-std=c2x, or _GNU_SOURCE as the runtime
// builds) to __isoc23_* versions, which differ from the old ones only in also reading a "0b" prefix of
// binary numbers (strtol with base 0 or 2; sscanf's %i and %b). Nothing in the runtime parses such a
// number: these give the old behaviour. strlcpy and strlcat are new in glibc 2.38, as BSD defined them.
//
// Hidden: the executable exports none of them, so that on trixie no library's own call of glibc's
// strlcpy is bound to this copy.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Against glibc 2.38's headers or newer, the strtol and sscanf calls below would compile to the
// __isoc23_* functions this file defines, each calling itself; and glibc would have them all anyway.
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 38)
#error "glibc 2.38 or newer defines these functions itself: this bridge is for a sysroot of glibc 2.36 (bookworm)"
#endif

#define BRIDGE __attribute__((visibility("hidden")))

BRIDGE long __isoc23_strtol(const char *nptr, char **endptr, int base) { return strtol(nptr, endptr, base); }

BRIDGE long long __isoc23_strtoll(const char *nptr, char **endptr, int base) { return strtoll(nptr, endptr, base); }

BRIDGE unsigned long __isoc23_strtoul(const char *nptr, char **endptr, int base) { return strtoul(nptr, endptr, base); }

BRIDGE unsigned long long __isoc23_strtoull(const char *nptr, char **endptr, int base) {
    return strtoull(nptr, endptr, base);
}

BRIDGE int __isoc23_sscanf(const char *string, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int assigned = vsscanf(string, format, arguments);
    va_end(arguments);
    return assigned;
}

// Copies at most size - 1 bytes and terminates dst if size is not 0; returns strlen(src), so that a
// result >= size says the copy was cut short.
BRIDGE size_t strlcpy(char *restrict dst, const char *restrict src, size_t size) {
    size_t length = strlen(src);
    if (size != 0) {
        size_t copied = length < size - 1 ? length : size - 1;
        memcpy(dst, src, copied);
        dst[copied] = '\0';
    }
    return length;
}

// Appends src to the string in dst, whose buffer holds size bytes; returns the length the whole string
// would have. A dst not terminated within size is left alone (size + strlen(src) is returned).
BRIDGE size_t strlcat(char *restrict dst, const char *restrict src, size_t size) {
    size_t used = strnlen(dst, size);
    if (used == size) return size + strlen(src);
    return used + strlcpy(dst + used, src, size - used);
}
