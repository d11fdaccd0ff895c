#ifndef PEER_CREDENTIALS_H
#define PEER_CREDENTIALS_H

#include <sys/types.h>

/// Who is at the other end of a connected Unix-domain socket, as SO_PEERCRED reports it. Linux's own
/// `struct ucred` is declared only under _GNU_SOURCE and does not import into Swift; this has its layout
/// (checked in peer_credentials.c), so SO_PEERCRED can be read into it through SwiftNIO's getsockopt.
struct peer_credentials {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};

#endif
