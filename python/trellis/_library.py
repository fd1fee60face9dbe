"""libtrellis through ctypes: every function of trellis.h, and its errors as exceptions.

ctypes.CDLL releases the GIL for the length of every call, so chains process in
parallel from several Python threads."""
import ctypes
import os
from ctypes import POINTER, c_char_p, c_double, c_int, c_int64, c_void_p

from . import errors


def _path():
    return os.environ.get("TRELLIS_LIBRARY") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "libtrellis.so")


lib = ctypes.CDLL(_path())

_SIGNATURES = {
    "trellis_version": ([], c_char_p),
    "trellis_last_error": ([], c_char_p),
    "trellis_last_status": ([], c_int),
    "trellis_free_string": ([c_void_p], None),
    "trellis_units_json": ([], c_void_p),
    "trellis_unit_info_json": ([c_char_p], c_void_p),
    "trellis_chain_open": ([c_char_p, c_double, c_int, c_int], c_void_p),
    "trellis_chain_close": ([c_void_p], None),
    "trellis_chain_input_channels": ([c_void_p], c_int),
    "trellis_chain_output_channels": ([c_void_p], c_int),
    "trellis_chain_sample_rate": ([c_void_p], c_double),
    "trellis_chain_unit_count": ([c_void_p], c_int),
    "trellis_chain_parameters_json": ([c_void_p, c_int], c_void_p),
    "trellis_chain_get_parameter": ([c_void_p, c_int, c_char_p, POINTER(c_double)], c_int),
    "trellis_chain_set_parameter": ([c_void_p, c_int, c_char_p, c_double], c_int),
    "trellis_chain_process": ([c_void_p, POINTER(c_void_p), POINTER(c_void_p), c_int64], c_int),
    "trellis_chain_reset": ([c_void_p], c_int),
    "trellis_chain_latency": ([c_void_p], c_int64),
    "trellis_chain_tail": ([c_void_p], c_double),
    "trellis_file_open_read": ([c_char_p, c_double], c_void_p),
    "trellis_file_open_write": ([c_char_p, c_double, c_int, c_char_p, c_double], c_void_p),
    "trellis_file_info": ([c_void_p, POINTER(c_double), POINTER(c_int), POINTER(c_int64)], c_int),
    "trellis_file_read": ([c_void_p, POINTER(c_void_p), c_int64], c_int64),
    "trellis_file_seek": ([c_void_p, c_int64], c_int),
    "trellis_file_tell": ([c_void_p], c_int64),
    "trellis_file_write": ([c_void_p, POINTER(c_void_p), c_int64], c_int),
    "trellis_file_close": ([c_void_p], c_int),
    "trellis_render_session": ([c_char_p, POINTER(c_char_p), c_int, c_double, c_char_p], c_int64),
    "trellis_render_chain": ([c_char_p, c_char_p, c_double, c_double, c_char_p], c_int64),
}

for _name, (_arguments, _result) in _SIGNATURES.items():
    _function = getattr(lib, _name)
    _function.argtypes = _arguments
    _function.restype = _result


def fail(status=None):
    """Raises the calling thread's last failure."""
    status = status if status is not None else lib.trellis_last_status()
    raise errors.for_status(status, lib.trellis_last_error().decode("utf-8", "replace"))


def check(result):
    """A status or count, raising when it is negative."""
    if result < 0:
        fail(int(result))
    return result


def handle(pointer):
    """A handle, raising when it is NULL."""
    if not pointer:
        fail()
    return pointer


def text(pointer):
    """Text the library returned (freed here), raising when it is NULL."""
    if not pointer:
        fail()
    try:
        return ctypes.string_at(pointer).decode("utf-8")
    finally:
        lib.trellis_free_string(pointer)


def encode(value):
    return os.fsencode(value) if isinstance(value, os.PathLike) else str(value).encode("utf-8")


def channel_pointers(rows):
    """A C array of the rows' data pointers (each row contiguous float32)."""
    return (c_void_p * len(rows))(*[row.ctypes.data for row in rows])
