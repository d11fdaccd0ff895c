#ifndef VOLUME_GUARD_CPULSE_SHIM_H
#define VOLUME_GUARD_CPULSE_SHIM_H

#include <pthread.h>
#include <pulse/pulseaudio.h>

/// Channel `i` of a `pa_cvolume`; Swift sees `values` as a 32-element tuple.
static inline pa_volume_t cpulse_cvolume_get(const pa_cvolume *v, unsigned i) { return v->values[i]; }

/// Sets channel `i` of a `pa_cvolume`.
static inline void cpulse_cvolume_put(pa_cvolume *v, unsigned i, pa_volume_t value) { v->values[i] = value; }

/// glibc's, which <pthread.h> declares only under _GNU_SOURCE: names libpulse's thread.
int pthread_setname_np(pthread_t thread, const char *name);

#endif
