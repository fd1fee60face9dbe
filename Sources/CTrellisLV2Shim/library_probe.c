#define _GNU_SOURCE
#include "trellis_lv2_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <lv2/core/lv2.h>

extern char **environ;

static const char server_variable[] = "TRELLIS_LV2_PROBE_SERVER";

/* The server's requests arrive on stdin and its records leave on this descriptor; its
   stdout and stderr go to /dev/null so a library's chatter can neither reach the
   caller's output nor corrupt the records. */
enum { answer_fd = 3, most_children = 16 };

/* A growing byte buffer; `failed` once memory ran out (the server then stops). */
struct bytes {
    char *data;
    size_t length, capacity;
};

static int append(struct bytes *buffer, const char *data, size_t length) {
    if (buffer->length + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + length) capacity *= 2;
        char *grown = realloc(buffer->data, capacity);
        if (!grown) return -1;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, data, length);
    buffer->length += length;
    return 0;
}

static void consume(struct bytes *buffer, size_t count) {
    memmove(buffer->data, buffer->data + count, buffer->length - count);
    buffer->length -= count;
}

static void write_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

static void write_line(int fd, const char *text) {
    write_all(fd, text, strlen(text));
    write_all(fd, "\n", 1);
}

/* Runs in a forked child: opens the library and writes what it provides. */
static void probe(const char *path, int fd) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        write_line(fd, "error");
        write_line(fd, reason ? reason : "unknown reason");
        return;
    }
    LV2_Descriptor_Function list = (LV2_Descriptor_Function)dlsym(handle, "lv2_descriptor");
    if (!list) {
        write_line(fd, dlsym(handle, "lv2_lib_descriptor") ? "lib" : "none");
        return;
    }
    write_line(fd, "ok");
    for (uint32_t index = 0; index < 100000; ++index) {
        const LV2_Descriptor *descriptor = list(index);
        if (!descriptor) break;
        if (descriptor->URI) write_line(fd, descriptor->URI);
    }
}

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

struct child {
    pid_t pid;
    int fd;
    char *path;
    struct bytes output;
    double started;
};

static int start_child(struct child *child, char *path) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* A library that crashes ends the child at once, with its signal: no handler
           the program installed (Swift's backtracer) runs here. */
        const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
        for (size_t index = 0; index < sizeof faults / sizeof faults[0]; ++index) signal(faults[index], SIG_DFL);
        close(fds[0]);
        probe(path, fds[1]);
        _exit(0);
    }
    close(fds[1]);
    *child = (struct child){.pid = pid, .fd = fds[0], .path = path, .started = seconds_now()};
    return 0;
}

/* Appends the record `path NUL outcome NUL output NUL` and frees the child's memory. */
static int finish_child(struct child *child, int late, struct bytes *records) {
    close(child->fd);
    if (late) kill(child->pid, SIGKILL);
    int status = 0;
    while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {}
    char outcome[32];
    if (late) snprintf(outcome, sizeof outcome, "late");
    else if (WIFSIGNALED(status)) snprintf(outcome, sizeof outcome, "signal %d", WTERMSIG(status));
    else snprintf(outcome, sizeof outcome, "exit %d", WEXITSTATUS(status));
    int failed = append(records, child->path, strlen(child->path) + 1) || append(records, outcome, strlen(outcome) + 1)
        || append(records, child->output.data ? child->output.data : "", child->output.length) || append(records, "", 1);
    free(child->path);
    free(child->output.data);
    return failed ? -1 : 0;
}

/* Serves until its requests end and every record is written (see the header). Its
   requests and records are both buffered here, so neither side can block the other. */
static void serve(int width, double timeout) {
    struct child children[most_children];
    int running = 0, requests_open = 1;
    struct bytes requests = {0}, records = {0};
    fcntl(answer_fd, F_SETFL, fcntl(answer_fd, F_GETFL) | O_NONBLOCK);
    char chunk[4096];
    while (requests_open || running > 0 || requests.length > 0 || records.length > 0) {
        char *newline;
        while (running < width && requests.length > 0 && (newline = memchr(requests.data, '\n', requests.length))) {
            size_t length = (size_t)(newline - requests.data);
            char *path = strndup(requests.data, length);
            consume(&requests, length + 1);
            if (!path || start_child(&children[running], path) != 0) {
                free(path);
                return;
            }
            ++running;
        }
        if (!requests_open && requests.length > 0 && !memchr(requests.data, '\n', requests.length)) {
            if (append(&requests, "\n", 1)) return;
            continue;
        }
        if (!requests_open && running == 0 && requests.length == 0 && records.length == 0) break;

        struct pollfd polled[most_children + 2];
        int count = 0;
        for (int index = 0; index < running; ++index) polled[count++] = (struct pollfd){.fd = children[index].fd, .events = POLLIN};
        int requests_slot = -1, records_slot = -1;
        if (requests_open) { requests_slot = count; polled[count++] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN}; }
        if (records.length > 0) { records_slot = count; polled[count++] = (struct pollfd){.fd = answer_fd, .events = POLLOUT}; }
        if (poll(polled, (nfds_t)count, 100) < 0 && errno != EINTR) return;

        if (requests_slot >= 0 && polled[requests_slot].revents) {
            ssize_t got = read(STDIN_FILENO, chunk, sizeof chunk);
            if (got > 0) { if (append(&requests, chunk, (size_t)got)) return; }
            else if (got == 0 || (errno != EINTR && errno != EAGAIN)) requests_open = 0;
        }
        if (records_slot >= 0 && polled[records_slot].revents) {
            if (polled[records_slot].revents & (POLLERR | POLLHUP)) return;
            ssize_t written = write(answer_fd, records.data, records.length);
            if (written > 0) consume(&records, (size_t)written);
            else if (written < 0 && errno != EINTR && errno != EAGAIN) return;
        }
        for (int index = running - 1; index >= 0; --index) {
            struct child *child = &children[index];
            int finished = 0;
            if (polled[index].revents) {
                ssize_t got = read(child->fd, chunk, sizeof chunk);
                if (got > 0 && append(&child->output, chunk, (size_t)got)) return;
                finished = got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN);
            }
            int late = !finished && seconds_now() - child->started > timeout;
            if (!finished && !late) continue;
            if (finish_child(child, late, &records)) return;
            children[index] = children[--running];
        }
    }
}

/* Runs in every program that links this library, before main: the probe server does
   its one job here and leaves without running anything of the program itself. Nothing
   has started a thread yet, so forking here is safe. */
__attribute__((constructor)) static void trellis_lv2_probe_server_main(void) {
    const char *setting = getenv(server_variable);
    if (!setting) return;
    int width = 4;
    double timeout = 10;
    sscanf(setting, "%d %lf", &width, &timeout);
    if (width < 1) width = 1;
    if (width > most_children) width = most_children;
    signal(SIGPIPE, SIG_IGN);
    serve(width, timeout);
    _exit(0);
}

pid_t trellis_lv2_probe_server(int width, double timeout, int *request_fd, int *answer_read_fd) {
    int requests[2], answers[2];
    if (pipe2(requests, O_CLOEXEC) != 0) return -1;
    if (pipe2(answers, O_CLOEXEC) != 0) {
        close(requests[0]);
        close(requests[1]);
        return -1;
    }
    size_t count = 0;
    while (environ[count]) ++count;
    char **environment = calloc(count + 2, sizeof(char *));
    char setting[sizeof server_variable + 64];
    snprintf(setting, sizeof setting, "%s=%d %f", server_variable, width, timeout);
    posix_spawn_file_actions_t actions;
    int failure = environment ? posix_spawn_file_actions_init(&actions) : ENOMEM;
    pid_t pid = -1;
    if (failure == 0) {
        size_t kept = 0;
        for (size_t index = 0; index < count; ++index) {
            if (strncmp(environ[index], server_variable, sizeof(server_variable) - 1) != 0) environment[kept++] = environ[index];
        }
        environment[kept] = setting;
        posix_spawn_file_actions_adddup2(&actions, requests[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, answers[1], answer_fd);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        char *arguments[] = {"trellis-lv2-probe", NULL};
        failure = posix_spawn(&pid, "/proc/self/exe", &actions, NULL, arguments, environment);
        posix_spawn_file_actions_destroy(&actions);
    }
    free(environment);
    close(requests[0]);
    close(answers[1]);
    if (failure != 0) {
        close(requests[1]);
        close(answers[0]);
        errno = failure;
        return -1;
    }
    *request_fd = requests[1];
    *answer_read_fd = answers[0];
    return pid;
}
