// Compiled only to check, where struct ucred is declared, that struct peer_credentials matches it.
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>

#include "peer_credentials.h"

_Static_assert(sizeof(struct peer_credentials) == sizeof(struct ucred), "struct ucred changed size");
_Static_assert(offsetof(struct peer_credentials, uid) == offsetof(struct ucred, uid), "struct ucred changed layout");
