"""Audio files through Trellis (libsndfile, libsoxr for rates), as pedalboard.io.AudioFile."""
import ctypes
import os

import numpy as np

from ._library import channel_pointers, check, encode, handle, lib


def channels_first(samples):
    """Float samples as (channels, frames): (frames,) is one channel, and a 2-D array
    whose first dimension is over 64 and second at most 64 is (frames, channels)."""
    array = np.asarray(samples)
    if array.dtype not in (np.float32, np.float64):
        raise TypeError(f"samples must be float32 or float64, not {array.dtype}")
    if array.ndim == 1:
        return array[np.newaxis, :]
    if array.ndim == 2:
        return array.T if array.shape[0] > 64 and array.shape[1] <= 64 else array
    raise ValueError(f"samples must have shape (frames,) or (channels, frames), not {array.shape}")


class AudioFile:
    """An audio file to read (`mode="r"`, the default) or write (`mode="w"`, with
    `samplerate` and `num_channels`). Reading at another `samplerate` converts (libsoxr,
    high quality). Writing picks the container from the extension (.wav .aiff .caf
    .flac .ogg); `sample_type` is "float32", "int16", "int24" or "int32" (default: what
    the container holds best), `quality` is Ogg Vorbis' from 0 to 1. Use it as a context
    manager, or close it: a written file is finished by `close`."""

    def __init__(self, path, mode="r", samplerate=None, num_channels=None, sample_type=None, quality=None):
        self.path = os.fspath(path)
        self.mode = mode
        if mode == "r":
            self._pointer = handle(lib.trellis_file_open_read(encode(path), float(samplerate or 0)))
        elif mode == "w":
            if samplerate is None or num_channels is None:
                raise TypeError("writing a file needs samplerate and num_channels")
            kind = sample_type.encode("utf-8") if sample_type else None
            self._pointer = handle(lib.trellis_file_open_write(
                encode(path), float(samplerate), int(num_channels), kind, -1.0 if quality is None else float(quality)))
        else:
            raise ValueError(f"mode must be 'r' or 'w', not {mode!r}")
        rate, channels, frames = ctypes.c_double(), ctypes.c_int(), ctypes.c_int64()
        check(lib.trellis_file_info(self._pointer, ctypes.byref(rate), ctypes.byref(channels), ctypes.byref(frames)))
        self.samplerate = rate.value
        self.num_channels = channels.value
        self._frames = frames.value

    def __enter__(self):
        return self

    def __exit__(self, *failure):
        self.close()

    def __del__(self):
        if getattr(self, "_pointer", None) and lib is not None:
            lib.trellis_file_close(self._pointer)
            self._pointer = None

    @property
    def closed(self):
        return not self._pointer

    def _open(self):
        if not self._pointer:
            raise ValueError(f"{self.path} is closed")
        return self._pointer

    def close(self):
        pointer, self._pointer = self._pointer, None
        if pointer:
            check(lib.trellis_file_close(pointer))

    @property
    def frames(self):
        """The length in frames at the reading rate; frames written so far when writing."""
        if self.mode == "w" and self._pointer:
            frames = ctypes.c_int64()
            check(lib.trellis_file_info(self._pointer, None, None, ctypes.byref(frames)))
            return frames.value
        return self._frames

    @property
    def duration(self):
        return self.frames / self.samplerate

    def tell(self):
        return int(check(lib.trellis_file_tell(self._open())))

    def seek(self, frame):
        check(lib.trellis_file_seek(self._open(), int(frame)))

    def _mode(self, mode):
        if self.mode != mode:
            raise ValueError(f"{self.path} is open to {'read' if self.mode == 'r' else 'write'}")
        return self._open()

    def read(self, num_frames=None):
        """Up to `num_frames` frames (all that are left by default) as float32 (channels, frames)."""
        self._mode("r")
        left = max(0, self._frames - self.tell())
        count = left if num_frames is None else max(0, min(int(num_frames), left))
        samples = np.empty((self.num_channels, count), dtype=np.float32)
        if count:
            got = int(check(lib.trellis_file_read(self._open(), channel_pointers(list(samples)), count)))
            samples = samples[:, :got]
        return samples

    def write(self, samples):
        """Appends (channels, frames) or, for one channel, (frames,) float32 or float64;
        (frames, channels) when the first dimension is over 64 and the second at most 64."""
        self._mode("w")
        array = channels_first(samples)
        if array.shape[0] != self.num_channels:
            raise ValueError(f"{self.path} has {self.num_channels} channels; the samples' shape is {np.shape(samples)}")
        rows = [np.ascontiguousarray(row, dtype=np.float32) for row in array]
        check(lib.trellis_file_write(self._open(), channel_pointers(rows), array.shape[1]))

    def resampled_to(self, samplerate):
        """The same file read at another rate (libsoxr, high quality), from its start."""
        self._mode("r")
        return AudioFile(self.path, "r", samplerate=samplerate)

    def __repr__(self):
        state = "closed" if self.closed else f"{self.samplerate:g} Hz, {self.num_channels} ch, {self.frames} frames"
        return f"<trellis.AudioFile {self.path!r} {self.mode!r} {state}>"
