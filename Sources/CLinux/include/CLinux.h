#ifndef WHISPER_CLINUX_H
#define WHISPER_CLINUX_H

// Glibc's Swift overlay does not expose epoll, eventfd, timerfd, signalfd or accept4.
// These thin wrappers are the only C the runtime needs. _GNU_SOURCE is defined in the
// .c file only: defining it here breaks fd_set and sockaddr imports.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>

// epoll
int clinux_epoll_create(void);
int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
/* Waits at most timeout_ns nanoseconds (< 0: forever). epoll_pwait2 (Linux 5.11) where the
   kernel has it, so a 1 ms timer does not sleep 1-2 ms; otherwise epoll_wait rounded up to ms. */
int clinux_epoll_wait(int epfd, struct epoll_event *events, int maxevents, int64_t timeout_ns);
uint64_t clinux_epoll_event_token(const struct epoll_event *ev);
uint32_t clinux_epoll_event_mask(const struct epoll_event *ev);

static const uint32_t CLINUX_EPOLLIN = EPOLLIN;
static const uint32_t CLINUX_EPOLLOUT = EPOLLOUT;
static const uint32_t CLINUX_EPOLLERR = EPOLLERR;
static const uint32_t CLINUX_EPOLLHUP = EPOLLHUP;
static const uint32_t CLINUX_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t CLINUX_EPOLLET = EPOLLET;
static const int CLINUX_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
static const int CLINUX_EPOLL_CTL_MOD = EPOLL_CTL_MOD;
static const int CLINUX_EPOLL_CTL_DEL = EPOLL_CTL_DEL;

// eventfd (non-blocking, close-on-exec)
int clinux_eventfd(void);
int clinux_eventfd_signal(int fd);
int clinux_eventfd_drain(int fd);

// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC
int clinux_accept(int fd, struct sockaddr *addr, socklen_t *len);

// socket(2) with SOCK_NONBLOCK | SOCK_CLOEXEC
int clinux_socket_stream(int domain);

// Installs SIGTERM/SIGINT handlers that make the returned eventfd readable (any thread may
// receive the signal; the handler only writes the eventfd), and ignores SIGPIPE.
int clinux_termination_eventfd(void);
// An eventfd that SIGHUP increments (the server reloads its TLS certificate and key).
int clinux_hangup_eventfd(void);
// Ignores SIGPIPE: a peer that vanished must yield EPIPE, never kill the process.
void clinux_ignore_sigpipe(void);

// Names the calling thread (at most 15 bytes kept), as top -H, perf and /proc show it.
void clinux_set_thread_name(const char *name);

// thread CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID)
uint64_t clinux_thread_cpu_ns(void);
// monotonic clock in nanoseconds
uint64_t clinux_monotonic_ns(void);
// process id and page size, for /proc based process metrics
long clinux_page_size(void);
long clinux_clock_ticks(void);

#endif
