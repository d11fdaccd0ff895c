/*
 * vgprobe: the measuring client of scripts/bench.
 *
 * One single-threaded process on libpulse's plain pa_mainloop, holding:
 *   - a "setter" context that changes the default sink's volume (as a desktop's volume keys do),
 *   - an "observer" context subscribed to sink events, which reads the sink after each change event
 *     (the "third client" that sees the volume come back to the held level),
 *   - N subscribers on the guard's Unix socket (`{"cmd":"subscribe","gestures":false}`: presses only; the
 *     baseline ignores the field), reading press lines (latency and fanout only).
 * Every arrival is stamped with CLOCK_MONOTONIC taken right after poll() returned (a hook on the
 * mainloop's poll), so reading 1,000 sockets one after another does not add to the last one's time.
 * A set is stamped just before its request is handed to libpulse.
 *
 * Modes (results as one JSON object on stdout; notes on stderr):
 *   floor    set held±step, time until the observer gets the sink change event; then set held back.
 *   latency  set held±step with a guard running; time to the press line and to the observer's first
 *            reading of the held level (read issued after a change event that followed the set).
 *   fanout   latency with N subscribers: time until the last of them has the press line (and each
 *            set's own CLOCK_MONOTONIC time, t0_us, for benchmarks/fanout_trace.py).
 *   rate     N relative +step presses at a fixed interval (read current, set current+step).
 *   burst    N relative +step presses back to back (the next as soon as the previous set is acked).
 *   set      sets the sink to --held; get reads it. Both print the level read.
 * rate and burst only make the steps: bench.py counts the guard's presses on a subscriber of its own.
 * With --linger, the subscribers stay connected after the result is printed, until stdin is closed
 * (bench.py reads the guard's memory with them connected).
 *
 * Every wait is bounded; the process exits non-zero on a broken connection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pulse/pulseaudio.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ options */
static const char *mode = NULL;
static const char *socket_path = NULL;
static int samples = 200;
static int subscribers = 1;
static int steps = 200;
static double interval_ms = 20;
static double gap_ms = 10;
static double timeout_ms = 1000;
static uint32_t held = PA_VOLUME_NORM / 2;      /* 50 %: raw 32768 */
static uint32_t step = 3277;                     /* 5 % of PA_VOLUME_NORM, rounded */
static uint32_t tolerance = 8;                   /* pipewire-pulse may read back a few raw units off */
static int linger = 0;

/* ------------------------------------------------------------------ clock and loop */
static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static pa_mainloop *ml;
static pa_mainloop_api *api;
static double poll_ts;   /* when the last poll() returned: the arrival time of what it reported */

static int hooked_poll(struct pollfd *fds, unsigned long n, int timeout, void *userdata) {
    (void)userdata;
    int r = poll(fds, n, timeout);
    poll_ts = now_us();
    return r;
}

static void note(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vgprobe: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vgprobe: fatal: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static void iterate(double deadline) {
    double rem = deadline - now_us();
    int t = rem <= 0 ? 0 : (int)rem;
    if (t > 100000) t = 100000;
    if (pa_mainloop_prepare(ml, t) < 0 || pa_mainloop_poll(ml) < 0 || pa_mainloop_dispatch(ml) < 0)
        die("mainloop failed");
}

/* Runs the loop until cond holds (1) or timeout_us passes (0). */
#define WAIT_UNTIL(cond, timeout_us) ({                           \
    double dl_ = now_us() + (timeout_us);                         \
    int ok_ = 1;                                                  \
    while (!(cond)) {                                             \
        if (now_us() >= dl_) { ok_ = 0; break; }                  \
        iterate(dl_);                                             \
    }                                                             \
    ok_; })

static void run_for(double us) {
    double dl = now_us() + us;
    while (now_us() < dl) iterate(dl);
}

/* ------------------------------------------------------------------ libpulse clients */
static pa_context *setter, *observer;
static int setup_done = 0;

static void state_cb(pa_context *c, void *userdata) {
    pa_context_state_t s = pa_context_get_state(c);
    if ((s == PA_CONTEXT_FAILED || s == PA_CONTEXT_TERMINATED) && setup_done)
        die("%s: connection to the audio server lost: %s", (const char *)userdata,
            pa_strerror(pa_context_errno(c)));
}

static pa_context *connect_client(const char *name) {
    pa_context *c = pa_context_new(api, name);
    if (!c) die("pa_context_new");
    pa_context_set_state_callback(c, state_cb, (void *)name);
    if (pa_context_connect(c, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0)
        die("%s: connect: %s", name, pa_strerror(pa_context_errno(c)));
    if (!WAIT_UNTIL(pa_context_get_state(c) == PA_CONTEXT_READY || !PA_CONTEXT_IS_GOOD(pa_context_get_state(c)), 5e6)
        || pa_context_get_state(c) != PA_CONTEXT_READY)
        die("%s: cannot connect to the audio server: %s", name, pa_strerror(pa_context_errno(c)));
    return c;
}

static void unref_op(pa_operation *o) {
    if (!o) die("request failed: %s", pa_strerror(pa_context_errno(setter)));
    pa_operation_unref(o);
}

/* The default sink. */
static char sink_name[256];
static uint32_t sink_index = PA_INVALID_INDEX;
static uint8_t sink_channels;
static int info_done;

static void server_info_cb(pa_context *c, const pa_server_info *i, void *u) {
    (void)c; (void)u;
    if (i && i->default_sink_name) snprintf(sink_name, sizeof sink_name, "%s", i->default_sink_name);
    info_done = 1;
}

static pa_cvolume start_volume;
static void sink_by_name_cb(pa_context *c, const pa_sink_info *i, int eol, void *u) {
    (void)c; (void)u;
    if (eol) { info_done = 1; return; }
    sink_index = i->index;
    sink_channels = i->volume.channels;
    start_volume = i->volume;
}

static void find_sink(void) {
    info_done = 0;
    unref_op(pa_context_get_server_info(setter, server_info_cb, NULL));
    if (!WAIT_UNTIL(info_done, 5e6) || !sink_name[0]) die("no default sink");
    info_done = 0;
    unref_op(pa_context_get_sink_info_by_name(setter, sink_name, sink_by_name_cb, NULL));
    if (!WAIT_UNTIL(info_done, 5e6) || sink_index == PA_INVALID_INDEX) die("default sink %s not found", sink_name);
}

static int is_held(uint32_t v) { return v + tolerance >= held && v <= held + tolerance; }

/* ------------------------------------------------------------------ the current sample */
static struct {
    int no;            /* 0: no sample running */
    double t0;         /* just before the set request */
    int acked;
    double ack_t;
    int events;        /* sink change events seen by the observer since t0 */
    double event_t;    /* the first one */
    int saw_changed;   /* the observer read a level other than the held one */
    double changed_t;  /* ... first at this time */
    int reads;         /* readings the observer got */
    int first_read_changed;   /* whether its first reading already showed the change */
    double restore_t;  /* the observer's first reading of the held level, from a read issued after an event */
    int subs_got;      /* subscribers that have a press line since t0 */
    double first_press_t, last_press_t;
    long lines, count; /* press lines and their counts at subscriber 0 during this sample */
} cur;

static long events_total;

/* ------------------------------------------------------------------ observer */
static void observer_read_cb(pa_context *c, const pa_sink_info *i, int eol, void *u) {
    (void)c;
    if (eol || !i) return;
    long tag = (long)(intptr_t)u;
    int no = (int)(tag >> 1), eligible = (int)(tag & 1);
    if (no == 0 || no != cur.no) return;
    uint32_t v = pa_cvolume_max(&i->volume);
    if (cur.reads++ == 0) cur.first_read_changed = !is_held(v);
    if (!is_held(v) && !cur.saw_changed) { cur.saw_changed = 1; cur.changed_t = poll_ts; }
    else if (eligible && cur.restore_t == 0) cur.restore_t = poll_ts;
}

static int observer_reads = 0;   /* whether the observer reads after each event (not for the floor) */

static void subscribe_cb(pa_context *c, pa_subscription_event_type_t t, uint32_t idx, void *u) {
    (void)u;
    if ((t & PA_SUBSCRIPTION_EVENT_FACILITY_MASK) != PA_SUBSCRIPTION_EVENT_SINK) return;
    if ((t & PA_SUBSCRIPTION_EVENT_TYPE_MASK) != PA_SUBSCRIPTION_EVENT_CHANGE || idx != sink_index) return;
    events_total++;
    if (!cur.no) return;
    if (cur.events++ == 0) cur.event_t = poll_ts;
    if (observer_reads)
        unref_op(pa_context_get_sink_info_by_index(c, sink_index, observer_read_cb,
                                                   (void *)(intptr_t)(((long)cur.no << 1) | 1)));
}

/* ------------------------------------------------------------------ setter */
static int set_acks_pending = 0;
static long set_failures = 0;

static void set_ack_cb(pa_context *c, int success, void *u) {
    (void)c;
    int no = (int)(intptr_t)u;
    set_acks_pending--;
    if (!success) set_failures++;
    if (no && no == cur.no && !cur.acked) { cur.acked = 1; cur.ack_t = poll_ts; }
}

static void set_uniform(uint32_t value, int no) {
    pa_cvolume cv;
    pa_cvolume_set(&cv, sink_channels, value);
    set_acks_pending++;
    unref_op(pa_context_set_sink_volume_by_index(setter, sink_index, &cv, set_ack_cb, (void *)(intptr_t)no));
}

/* A one-off reading of the sink through the setter. */
static uint32_t read_value;
static int read_done;
static double read_ts;
static void plain_read_cb(pa_context *c, const pa_sink_info *i, int eol, void *u) {
    (void)c; (void)u;
    if (eol) { read_done = 1; return; }
    read_value = pa_cvolume_max(&i->volume);
    read_ts = poll_ts;
}
static uint32_t read_sink(void) {
    read_done = 0;
    read_value = 0;
    unref_op(pa_context_get_sink_info_by_index(setter, sink_index, plain_read_cb, NULL));
    if (!WAIT_UNTIL(read_done, 5e6)) die("reading the sink timed out");
    return read_value;
}

/* ------------------------------------------------------------------ subscribers */
struct sub {
    int fd;
    pa_io_event *io;
    char buf[16384];
    size_t len;
    int subscribed, closed;
    int got_no;            /* the sample whose press this subscriber already has */
    long lines, count, last_seq, seq_gaps, state_lines, other_lines;
};
static struct sub *subs;
static int subs_subscribed;

/* Finds "key" : and returns a pointer to the value, or NULL. Flat objects only. */
static const char *json_value(const char *line, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(line, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    if (*p != ':') return NULL;
    p++;
    while (*p == ' ') p++;
    return p;
}
static int json_is(const char *line, const char *key, const char *str) {
    const char *v = json_value(line, key);
    size_t n = strlen(str);
    return v && *v == '"' && strncmp(v + 1, str, n) == 0 && v[1 + n] == '"';
}
static long json_long(const char *line, const char *key, long fallback) {
    const char *v = json_value(line, key);
    return v ? strtol(v, NULL, 10) : fallback;
}

static void handle_line(struct sub *s, const char *line) {
    if (json_is(line, "type", "subscribed")) {
        if (!s->subscribed) subs_subscribed++;
        s->subscribed = 1;
        return;
    }
    if (json_is(line, "type", "state")) { s->state_lines++; return; }
    if (!json_is(line, "type", "press")) { s->other_lines++; note("unexpected line: %s", line); return; }
    long seq = json_long(line, "seq", -1), count = json_long(line, "count", 1);
    if (s->last_seq > 0 && seq != s->last_seq + 1) s->seq_gaps++;
    s->last_seq = seq;
    s->lines++;
    s->count += count;
    if (s == &subs[0] && cur.no) { cur.lines++; cur.count += count; }
    if (cur.no && s->got_no != cur.no) {
        s->got_no = cur.no;
        if (cur.subs_got++ == 0) cur.first_press_t = poll_ts;
        cur.last_press_t = poll_ts;
    }
}

static void sub_io_cb(pa_mainloop_api *a, pa_io_event *e, int fd, pa_io_event_flags_t f, void *u) {
    (void)a; (void)f; (void)fd;
    struct sub *s = u;
    for (;;) {
        ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - 1 - s->len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
            note("subscriber %ld: the guard closed the connection (%s)", (long)(s - subs), n < 0 ? strerror(errno) : "EOF");
            s->closed = 1;
            api->io_free(e);
            s->io = NULL;
            return;
        }
        s->len += (size_t)n;
        s->buf[s->len] = 0;
        char *start = s->buf, *nl;
        while ((nl = memchr(start, '\n', s->buf + s->len - start))) {
            *nl = 0;
            handle_line(s, start);
            start = nl + 1;
        }
        size_t rest = s->buf + s->len - start;
        memmove(s->buf, start, rest);
        s->len = rest;
        if (s->len >= sizeof s->buf - 1) die("a line longer than %zu bytes", sizeof s->buf);
    }
}

static void connect_subscribers(int n) {
    subs = calloc((size_t)n, sizeof *subs);
    if (!subs) die("out of memory");
    for (int i = 0; i < n; i++) {
        struct sub *s = &subs[i];
        s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s->fd < 0) die("socket: %s", strerror(errno));
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket_path);
        if (connect(s->fd, (struct sockaddr *)&addr, sizeof addr) < 0)
            die("connect %s (subscriber %d): %s", socket_path, i, strerror(errno));
        static const char req[] = "{\"cmd\":\"subscribe\",\"gestures\":false}\n";
        if (write(s->fd, req, sizeof req - 1) != (ssize_t)(sizeof req - 1)) die("write: %s", strerror(errno));
        fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
        s->io = api->io_new(api, s->fd, PA_IO_EVENT_INPUT, sub_io_cb, s);
    }
    if (!WAIT_UNTIL(subs_subscribed == n, 20e6))
        die("only %d of %d subscribers were answered `subscribed` within 20 s", subs_subscribed, n);
}

static void check_subscribers(void) {
    for (int i = 0; i < subscribers; i++)
        if (subs[i].closed) die("subscriber %d was disconnected by the guard", i);
}

/* ------------------------------------------------------------------ output */
static void print_array(const char *key, const double *v, int n, int comma) {
    printf("\"%s\":[", key);
    for (int i = 0; i < n; i++) printf("%s%.1f", i ? "," : "", v[i]);
    printf("]%s", comma ? "," : "");
}

static void begin_sample(int no) {
    memset(&cur, 0, sizeof cur);
    cur.no = no;
}

/* After a sample went wrong: let things settle, then put the sink back at the held level if needed. */
static long recoveries;
static void recover(void) {
    recoveries++;
    cur.no = 0;
    run_for(300e3);
    uint32_t v = read_sink();
    if (!is_held(v)) {
        note("recovery: sink at raw %u, not at the held level %u; setting it back", v, held);
        set_uniform(held, 0);
        run_for(300e3);
    }
}

/* ------------------------------------------------------------------ modes */
static void mode_floor(void) {
    double *lat = calloc((size_t)samples, sizeof *lat);
    double *rtt = calloc((size_t)samples, sizeof *rtt);
    double *visible = calloc((size_t)samples, sizeof *visible);
    double *ack = calloc((size_t)samples, sizeof *ack);
    int n = 0, nv = 0;
    long missing = 0, first_read_stale = 0;
    observer_reads = 1;   /* after each event, as a guard does; the event's time is not affected */
    for (int i = 0; i < samples; i++) {
        uint32_t target = i % 2 ? held - step : held + step;
        begin_sample(i + 1);
        cur.t0 = now_us();
        set_uniform(target, cur.no);
        if (WAIT_UNTIL(cur.events > 0 && cur.acked && cur.saw_changed, timeout_ms * 1e3)) {
            lat[n++] = cur.event_t - cur.t0;
            ack[nv] = cur.ack_t - cur.t0;
            visible[nv++] = cur.changed_t - cur.t0;
            if (!cur.first_read_changed) first_read_stale++;
        } else {
            missing++;
            note("floor sample %d: no change event or reading within %.0f ms", i, timeout_ms);
        }
        begin_sample(-(i + 1));   /* the way back is not timed */
        set_uniform(held, cur.no);
        if (!WAIT_UNTIL(cur.events > 0 && cur.acked, timeout_ms * 1e3)) { missing++; recover(); }
        cur.no = 0;
        run_for(gap_ms * 1e3);
        /* A read's round trip, after the same idle gap as a set: what a guard that reads after each
           event adds to the floor at least. */
        double t = now_us();
        read_sink();
        rtt[i] = read_ts - t;
        run_for(gap_ms * 1e3);
    }
    printf("{\"mode\":\"floor\",\"samples\":%d,\"missing\":%ld,\"first_read_stale\":%ld,", samples, missing,
           first_read_stale);
    print_array("rtt_us", rtt, samples, 1);
    print_array("visible_us", visible, nv, 1);
    print_array("ack_us", ack, nv, 1);
    print_array("event_us", lat, n, 0);
    printf("}\n");
}

/* latency and fanout: one set per sample, timed to the press lines and to the restore. */
static void mode_latency(int fanout) {
    double *press = calloc((size_t)samples, sizeof *press);
    double *first = calloc((size_t)samples, sizeof *first);
    double *restore = calloc((size_t)samples, sizeof *restore);
    double *event = calloc((size_t)samples, sizeof *event);   /* the same set's change event at the observer */
    double *t0s = calloc((size_t)samples, sizeof *t0s);
    int np = 0, nr = 0;
    long missing_press = 0, missing_restore = 0, extra_lines = 0, extra_count = 0, unseen_change = 0;
    observer_reads = 1;
    for (int i = 0; i < samples; i++) {
        uint32_t target = i % 2 ? held - step : held + step;
        begin_sample(i + 1);
        cur.t0 = now_us();
        set_uniform(target, cur.no);
        int ok = WAIT_UNTIL(cur.subs_got == subscribers && cur.restore_t > 0 && cur.acked, timeout_ms * 1e3);
        if (cur.subs_got == subscribers) {
            event[np] = cur.events ? cur.event_t - cur.t0 : -1;
            press[np] = cur.last_press_t - cur.t0;
            t0s[np] = cur.t0;
            first[np++] = cur.first_press_t - cur.t0;
        } else {
            missing_press++;
        }
        if (cur.restore_t > 0) {
            restore[nr++] = cur.restore_t - cur.t0;
            if (!cur.saw_changed) unseen_change++;
        } else {
            missing_restore++;
        }
        run_for(gap_ms * 1e3);   /* lines arriving now still belong to this sample */
        if (cur.lines > 1) extra_lines += cur.lines - 1;
        if (cur.count > 1) extra_count += cur.count - 1;
        if (!ok) {
            note("sample %d: %d/%d subscribers had the press, restore %s, ack %s after %.0f ms", i, cur.subs_got,
                 subscribers, cur.restore_t > 0 ? "seen" : "not seen", cur.acked ? "yes" : "no", timeout_ms);
            recover();
        }
        cur.no = 0;
        check_subscribers();
    }
    printf("{\"mode\":\"%s\",\"samples\":%d,\"subscribers\":%d,\"missing_press\":%ld,\"missing_restore\":%ld,"
           "\"extra_lines\":%ld,\"extra_count\":%ld,\"restore_without_seen_change\":%ld,\"recoveries\":%ld,"
           "\"seq_gaps\":%ld,",
           fanout ? "fanout" : "latency", samples, subscribers, missing_press, missing_restore, extra_lines,
           extra_count, unseen_change, recoveries, subs[0].seq_gaps);
    print_array(fanout ? "last_us" : "press_us", press, np, 1);
    print_array("event_us", event, np, 1);
    if (fanout) print_array("first_us", first, np, 1);
    if (fanout) print_array("t0_us", t0s, np, 1);
    print_array("restore_us", restore, nr, 0);
    printf("}\n");
}

/* rate and burst: relative presses, as a desktop sends them: read the volume, set it one step higher. */
static int rmw_reads_pending, rmw_acked;
static uint32_t rmw_highest;   /* the highest level read */
static void rmw_ack_cb(pa_context *c, int success, void *u) {
    (void)c; (void)u;
    set_acks_pending--;
    if (!success) set_failures++;
    rmw_acked++;
}
static void rmw_read_cb(pa_context *c, const pa_sink_info *i, int eol, void *u) {
    (void)u;
    if (eol) { rmw_reads_pending--; return; }
    pa_cvolume cv = i->volume;
    if (pa_cvolume_max(&cv) > rmw_highest) rmw_highest = pa_cvolume_max(&cv);
    for (int ch = 0; ch < cv.channels; ch++) {
        uint64_t v = (uint64_t)cv.values[ch] + step;
        cv.values[ch] = v > PA_VOLUME_MAX ? PA_VOLUME_MAX : (pa_volume_t)v;
    }
    set_acks_pending++;
    unref_op(pa_context_set_sink_volume_by_index(c, sink_index, &cv, rmw_ack_cb, NULL));
}
static void rmw_step(void) {
    rmw_reads_pending++;
    unref_op(pa_context_get_sink_info_by_index(setter, sink_index, rmw_read_cb, NULL));
}

static void mode_presses(int paced) {
    double start = now_us();
    for (int sent = 0; sent < steps; sent++) {
        if (paced) {
            double at = start + sent * interval_ms * 1e3;
            while (now_us() < at) iterate(at);
        }
        rmw_step();
        if (!paced && !WAIT_UNTIL(rmw_acked > sent, 5e6)) { note("burst: set %d not acknowledged within 5 s", sent); break; }
    }
    double sent_us = now_us() - start;
    if (!WAIT_UNTIL(rmw_reads_pending == 0 && set_acks_pending == 0, 10e6)) note("some sets were not acknowledged");
    printf("{\"mode\":\"%s\",\"made\":%ld,\"interval_ms\":%.1f,\"sent_us\":%.0f,\"highest_raw\":%u,"
           "\"set_failures\":%ld}\n",
           paced ? "rate" : "burst", rmw_acked - set_failures, paced ? interval_ms : 0.0, sent_us, rmw_highest,
           set_failures);
}

/* ------------------------------------------------------------------ main */
static void usage(void) {
    fprintf(stderr,
            "usage: vgprobe MODE [--socket PATH] [--samples N] [--subscribers N] [--steps N]\n"
            "               [--interval-ms MS] [--gap-ms MS] [--timeout-ms MS] [--held RAW] [--step RAW]\n"
            "               [--linger] [--limit-s S]\n"
            "MODE: floor | latency | fanout | rate | burst | set | get\n"
            "The audio server is PULSE_SERVER's; the sink is the default sink.\n");
    exit(2);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "vgprobe: fatal: overall time limit reached\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(3);
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    mode = argv[1];
    unsigned limit_s = 600;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--linger")) { linger = 1; continue; }
        if (i + 1 >= argc) usage();
        const char *v = argv[++i];
        if (!strcmp(a, "--socket")) socket_path = v;
        else if (!strcmp(a, "--samples")) samples = atoi(v);
        else if (!strcmp(a, "--subscribers")) subscribers = atoi(v);
        else if (!strcmp(a, "--steps")) steps = atoi(v);
        else if (!strcmp(a, "--interval-ms")) interval_ms = atof(v);
        else if (!strcmp(a, "--gap-ms")) gap_ms = atof(v);
        else if (!strcmp(a, "--timeout-ms")) timeout_ms = atof(v);
        else if (!strcmp(a, "--held")) held = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--step")) step = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--limit-s")) limit_s = (unsigned)atoi(v);
        else usage();
    }
    if (samples < 1 || samples > 100000 || steps < 1 || steps > 100000 || subscribers < 1 || subscribers > 4096)
        usage();
    if (step >= held) usage();
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    alarm(limit_s);   /* a hard bound on the whole run, whatever happens */

    ml = pa_mainloop_new();
    api = pa_mainloop_get_api(ml);
    pa_mainloop_set_poll_func(ml, hooked_poll, NULL);
    setter = connect_client("vgprobe-setter");
    find_sink();

    if (!strcmp(mode, "set") || !strcmp(mode, "get")) {
        if (mode[0] == 's') {
            set_uniform(held, 0);
            if (!WAIT_UNTIL(set_acks_pending == 0, 5e6)) die("set not acknowledged");
        }
        printf("{\"mode\":\"%s\",\"sink\":\"%s\",\"raw\":%u}\n", mode, sink_name, read_sink());
        return 0;
    }

    int is_floor = !strcmp(mode, "floor"), is_steps = !strcmp(mode, "rate") || !strcmp(mode, "burst");
    if (!is_steps) {   /* a program making steps is only a setter */
        observer = connect_client("vgprobe-observer");
        pa_context_set_subscribe_callback(observer, subscribe_cb, NULL);
        unref_op(pa_context_subscribe(observer, PA_SUBSCRIPTION_MASK_SINK, NULL, NULL));
    }
    setup_done = 1;

    uint32_t start = read_sink();
    if (!is_held(start)) note("the sink is at raw %u at the start, not at the held level %u", start, held);

    if (!is_floor && !is_steps) {
        if (!socket_path) usage();
        if (strcmp(mode, "fanout")) subscribers = 1;
        connect_subscribers(subscribers);
    }
    run_for(50e3);   /* let the subscription and the connections settle */

    if (is_floor) mode_floor();
    else if (!strcmp(mode, "latency")) mode_latency(0);
    else if (!strcmp(mode, "fanout")) mode_latency(1);
    else if (!strcmp(mode, "rate")) mode_presses(1);
    else if (!strcmp(mode, "burst")) mode_presses(0);
    else usage();
    fflush(stdout);
    if (linger) {
        char c;
        while (read(0, &c, 1) > 0) {}
    }

    if (subs) for (int i = 0; i < subscribers; i++) close(subs[i].fd);
    setup_done = 0;   /* from here a closed connection is expected */
    pa_context_disconnect(setter);
    if (observer) pa_context_disconnect(observer);
    return 0;
}
