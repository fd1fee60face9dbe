#include "trellis_turtle_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <serd/serd.h>

typedef struct {
    char *message;
    size_t size;
    unsigned line;
    unsigned column;
    int failed;
} Check;

static SerdStatus on_error(void *handle, const SerdError *error) {
    Check *check = handle;
    if (check->failed) return SERD_SUCCESS;
    check->failed = 1;
    check->line = error->line;
    check->column = error->col;
    va_list args;
    va_copy(args, *error->args);
    vsnprintf(check->message, check->size, error->fmt, args);
    va_end(args);
    size_t length = strlen(check->message);
    while (length > 0 && (check->message[length - 1] == '\n' || check->message[length - 1] == ' ')) check->message[--length] = 0;
    return SERD_SUCCESS;
}

int trellis_turtle_check(const char *text, char *message, size_t size, unsigned *line, unsigned *column) {
    Check check = {message, size, 0, 0, 0};
    if (size > 0) message[0] = 0;
    SerdReader *reader = serd_reader_new(SERD_TURTLE, &check, NULL, NULL, NULL, NULL, NULL);
    if (!reader) return 1;
    serd_reader_set_error_sink(reader, on_error, &check);
    SerdStatus status = serd_reader_read_string(reader, (const uint8_t *)text);
    serd_reader_free(reader);
    if (status == SERD_SUCCESS && !check.failed) return 0;
    *line = check.line;
    *column = check.column;
    if (size > 0 && message[0] == 0) snprintf(message, size, "unreadable Turtle");
    return 1;
}
