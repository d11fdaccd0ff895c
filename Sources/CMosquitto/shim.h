#ifndef VOLUME_GUARD_CMOSQUITTO_SHIM_H
#define VOLUME_GUARD_CMOSQUITTO_SHIM_H

#include <mosquitto.h>
#include <sys/eventfd.h>

#endif
