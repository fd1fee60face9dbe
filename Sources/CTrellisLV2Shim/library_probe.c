#define _GNU_SOURCE
#include "trellis_lv2_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lv2/core/lv2.h>

extern char **environ;

static const char probe_variable[] = "TRELLIS_LV2_PROBE_LIBRARY";

/* The child's answer goes to this descriptor; its stdout and stderr go to /dev/null so a
   library's own chatter can neither reach the caller's output nor corrupt the answer. */
enum { answer_fd = 3 };

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

/* Runs in every program that links this library, before main: a probe child does its one
   job here and leaves without running anything of the program itself. */
__attribute__((constructor)) static void trellis_lv2_probe_child(void) {
    const char *path = getenv(probe_variable);
    if (!path) return;
    probe(path, answer_fd);
    _exit(0);
}

pid_t trellis_lv2_probe_library(const char *path, int *read_fd) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;

    size_t count = 0;
    while (environ[count]) ++count;
    char **environment = calloc(count + 2, sizeof(char *));
    size_t setting_length = sizeof(probe_variable) + 1 + strlen(path);
    char *setting = malloc(setting_length);
    posix_spawn_file_actions_t actions;
    int failure = environment && setting ? posix_spawn_file_actions_init(&actions) : ENOMEM;
    pid_t pid = -1;
    if (failure == 0) {
        size_t kept = 0;
        for (size_t index = 0; index < count; ++index) {
            if (strncmp(environ[index], probe_variable, sizeof(probe_variable) - 1) != 0) environment[kept++] = environ[index];
        }
        snprintf(setting, setting_length, "%s=%s", probe_variable, path);
        environment[kept] = setting;

        posix_spawn_file_actions_adddup2(&actions, fds[1], answer_fd);
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        char *arguments[] = {"trellis-lv2-probe", NULL};
        failure = posix_spawn(&pid, "/proc/self/exe", &actions, NULL, arguments, environment);
        posix_spawn_file_actions_destroy(&actions);
    }
    free(setting);
    free(environment);
    close(fds[1]);
    if (failure != 0) {
        close(fds[0]);
        errno = failure;
        return -1;
    }
    *read_fd = fds[0];
    return pid;
}
