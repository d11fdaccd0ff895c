#ifndef VOLUME_GUARD_CMOSQUITTO_SHIM_H
#define VOLUME_GUARD_CMOSQUITTO_SHIM_H

#include <mosquitto.h>
#include <sys/eventfd.h>
#include <pthread.h>

/// glibc's, which <pthread.h> declares only under _GNU_SOURCE: names the connection's thread.
int pthread_setname_np(pthread_t thread, const char *name);

#endif
