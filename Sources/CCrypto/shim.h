#ifndef VOLUME_GUARD_CCRYPTO_SHIM_H
#define VOLUME_GUARD_CCRYPTO_SHIM_H

// OpenSSL's libcrypto: SHA-256, which keeps the paired clients' tokens as hashes, and its
// constant-time comparison; and getrandom(2), the kernel's random source the tokens come from, which
// Swift's Glibc module leaves out.
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <sys/random.h>

#endif
