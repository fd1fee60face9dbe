#ifndef TRELLIS_TURTLE_CHECK_H
#define TRELLIS_TURTLE_CHECK_H

#include <stddef.h>

/// Reads `text` as Turtle with serd, as lilv will, and reports the first syntax error:
/// returns 0 when the text reads cleanly, else 1 with serd's message in `message`
/// (`size` bytes, NUL-terminated) and its line and column. Thread: any.
int trellis_turtle_check(const char *text, char *message, size_t size, unsigned *line, unsigned *column);

#endif
