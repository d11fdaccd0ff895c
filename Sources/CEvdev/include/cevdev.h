#ifndef CEVDEV_H
#define CEVDEV_H

// The evdev ioctls volume-guard uses, as functions. Their request numbers are function-like macros
// (EVIOCGNAME(len) expands to _IOC(...)), which do not import into Swift; the event types and codes
// (EV_KEY, SYN_DROPPED, KEY_MAX) are plain integer macros and do, through this header.

#include <linux/input.h>
#include <stddef.h>
#include <sys/ioctl.h>

/// The device's name (EVIOCGNAME) into `name`, NUL-terminated if it fits in `size`; the length or -1.
static inline int cevdev_name(int fd, char *name, size_t size) {
    return ioctl(fd, EVIOCGNAME(size), name);
}

/// The device's bus, vendor, product and version (EVIOCGID); 0 or -1.
static inline int cevdev_id(int fd, struct input_id *id) {
    return ioctl(fd, EVIOCGID, id);
}

/// The device's unique identifier (EVIOCGUNIQ: a Bluetooth remote's address, which BlueZ sets) into `uniq`,
/// NUL-terminated if it fits in `size`; the length, or -1 with ENOENT when the device has none.
static inline int cevdev_uniq(int fd, char *uniq, size_t size) {
    return ioctl(fd, EVIOCGUNIQ(size), uniq);
}

/// The keys the device can send (EVIOCGBIT(EV_KEY)): one bit per key code, in `size` bytes of longs.
static inline int cevdev_key_capabilities(int fd, unsigned long *bits, size_t size) {
    return ioctl(fd, EVIOCGBIT(EV_KEY, size), bits);
}

/// The keys down now (EVIOCGKEY): one bit per key code, in `size` bytes of longs.
static inline int cevdev_keys_down(int fd, unsigned long *bits, size_t size) {
    return ioctl(fd, EVIOCGKEY(size), bits);
}

/// Takes the device for this open file alone (`grab` 1), or gives it back (0): EVIOCGRAB, whose
/// argument is the value itself, not a pointer to it.
static inline int cevdev_grab(int fd, int grab) {
    return ioctl(fd, EVIOCGRAB, (unsigned long)grab);
}

/// An event's time, whose fields have other names where `time_t` and `long` differ in size
/// (`input_event_sec` is a macro for either).
static inline long long cevdev_event_seconds(struct input_event event) {
    return event.input_event_sec;
}

static inline long long cevdev_event_microseconds(struct input_event event) {
    return event.input_event_usec;
}

#endif
