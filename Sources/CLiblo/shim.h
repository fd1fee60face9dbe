#include <lo/lo.h>

/// A string argument's characters: Swift cannot take the address of a union member.
static inline const char *trellis_lo_arg_string(lo_arg *argument) { return &argument->s; }
