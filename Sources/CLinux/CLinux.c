#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

int clinux_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &ev);
}

static int clinux_has_pwait2 = 1;

int clinux_epoll_wait(int epfd, struct epoll_event *events, int maxevents, int64_t timeout_ns) {
    if (__atomic_load_n(&clinux_has_pwait2, __ATOMIC_RELAXED)) {
        struct timespec ts;
        struct timespec *tsp = NULL;
        if (timeout_ns >= 0) {
            ts.tv_sec = (time_t)(timeout_ns / 1000000000);
            ts.tv_nsec = (long)(timeout_ns % 1000000000);
            tsp = &ts;
        }
        int n = epoll_pwait2(epfd, events, maxevents, tsp, NULL);
        if (n >= 0 || errno != ENOSYS) return n;
        __atomic_store_n(&clinux_has_pwait2, 0, __ATOMIC_RELAXED);
    }
    int timeout_ms = -1;
    if (timeout_ns >= 0) {
        int64_t ms = (timeout_ns + 999999) / 1000000;
        timeout_ms = ms > 2147483647 ? 2147483647 : (int)ms;
    }
    return epoll_wait(epfd, events, maxevents, timeout_ms);
}

uint64_t clinux_epoll_event_token(const struct epoll_event *ev) { return ev->data.u64; }
uint32_t clinux_epoll_event_mask(const struct epoll_event *ev) { return ev->events; }

int clinux_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int clinux_eventfd_signal(int fd) {
    uint64_t one = 1;
    for (;;) {
        ssize_t n = write(fd, &one, sizeof one);
        if (n == (ssize_t)sizeof one) return 0;
        if (n < 0 && errno == EINTR) continue;
        // EAGAIN means the counter is saturated: a wake-up is already pending.
        return (n < 0 && errno == EAGAIN) ? 0 : -1;
    }
}

int clinux_eventfd_drain(int fd) {
    uint64_t value;
    for (;;) {
        ssize_t n = read(fd, &value, sizeof value);
        if (n == (ssize_t)sizeof value) return 0;
        if (n < 0 && errno == EINTR) continue;
        return (n < 0 && errno == EAGAIN) ? 0 : -1;
    }
}

int clinux_accept(int fd, struct sockaddr *addr, socklen_t *len) {
    return accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int clinux_socket_stream(int domain) {
    return socket(domain, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

static int termination_fd = -1;

static void on_termination(int signo) {
    (void)signo;
    int saved = errno;
    uint64_t one = 1;
    ssize_t ignored = write(termination_fd, &one, sizeof one);  // async-signal-safe
    (void)ignored;
    errno = saved;
}

void clinux_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

int clinux_termination_eventfd(void) {
    if (termination_fd >= 0) return termination_fd;
    termination_fd = eventfd(0, EFD_CLOEXEC);
    if (termination_fd < 0) return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_termination;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    clinux_ignore_sigpipe();
    return termination_fd;
}

static int hangup_fd = -1;

static void on_hangup(int signo) {
    (void)signo;
    int saved = errno;
    uint64_t one = 1;
    ssize_t ignored = write(hangup_fd, &one, sizeof one);  // async-signal-safe
    (void)ignored;
    errno = saved;
}

int clinux_hangup_eventfd(void) {
    if (hangup_fd >= 0) return hangup_fd;
    hangup_fd = eventfd(0, EFD_CLOEXEC);
    if (hangup_fd < 0) return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_hangup;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGHUP, &sa, NULL);
    return hangup_fd;
}

uint64_t clinux_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t clinux_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

long clinux_page_size(void) { return sysconf(_SC_PAGESIZE); }
long clinux_clock_ticks(void) { return sysconf(_SC_CLK_TCK); }

void clinux_set_thread_name(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }
