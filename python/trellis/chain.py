"""Units in series processing numpy arrays, as `trellis chain` runs them."""
import numpy as np

from ._library import channel_pointers, check, handle, lib
from .unit import Unit, stage_text


class Native:
    """One open C chain, for one rate, width and slice length."""

    def __init__(self, text, sample_rate, channels, block):
        self.pointer = handle(lib.trellis_chain_open(text.encode("utf-8"), float(sample_rate), channels, block))
        self.inputs = lib.trellis_chain_input_channels(self.pointer)
        self.outputs = lib.trellis_chain_output_channels(self.pointer)

    def __del__(self):
        pointer, self.pointer = getattr(self, "pointer", None), None
        if pointer and lib is not None:
            lib.trellis_chain_close(pointer)

    def process(self, rows, outputs, frames):
        check(lib.trellis_chain_process(self.pointer, channel_pointers(rows), channel_pointers(outputs), frames))

    def reset(self):
        check(lib.trellis_chain_reset(self.pointer))

    @property
    def latency(self):
        return int(check(lib.trellis_chain_latency(self.pointer)))

    @property
    def tail(self):
        return float(lib.trellis_chain_tail(self.pointer))


def _unit(item):
    if isinstance(item, Unit):
        return item
    if isinstance(item, str):
        return Unit(item)
    name, settings = item
    return Unit(name, settings=settings)


class Chain:
    """Units in series (`Unit`s, names, or `(name, settings)` pairs), callable on audio as
    a pedalboard `Pedalboard` is: `chain(audio, sample_rate)`.

    The output is what `trellis chain` writes for the same input and settings, sample for
    sample. Widths adapt as the command adapts them: a mono plugin in a stereo chain runs
    once per channel."""

    def __init__(self, units=()):
        self._units = [_unit(item) for item in units or ()]
        self._native = None
        self._key = None
        self._opened_units = ()
        self._applied = None
        self._needs_reset = False

    # -- a list of units ---------------------------------------------------------

    def __len__(self):
        return len(self._units)

    def __iter__(self):
        return iter(self._units)

    def __getitem__(self, index):
        return self._units[index]

    def __setitem__(self, index, unit):
        self._units[index] = [_unit(item) for item in unit] if isinstance(index, slice) else _unit(unit)

    def __delitem__(self, index):
        del self._units[index]

    def append(self, unit):
        self._units.append(_unit(unit))

    def insert(self, index, unit):
        self._units.insert(index, _unit(unit))

    def remove(self, unit):
        self._units.remove(unit)

    def pop(self, index=-1):
        return self._units.pop(index)

    def __repr__(self):
        return "<trellis.Chain [" + ", ".join(repr(unit) for unit in self._units) + "]>"

    def __reduce__(self):
        return (Chain, ([unit.__reduce__()[1] for unit in self._units],))

    @property
    def text(self):
        """The chain as the C interface and `trellis chain` read it."""
        return " ! ".join(stage_text(unit.name, unit.settings) for unit in self._units)

    # -- processing --------------------------------------------------------------

    def _open(self, sample_rate, channels, buffer_size):
        """The C chain for this rate and width, opened again when the units changed in
        more than parameter values (those are set on the open chain, keeping its state)."""
        shape = (float(sample_rate), channels, buffer_size or 0)
        # The units themselves are kept (not their ids, which a new unit may reuse).
        same_units = len(self._opened_units) == len(self._units) and all(
            a is b for a, b in zip(self._opened_units, self._units))
        if self._native is not None and self._key == shape and same_units:
            if [unit._version for unit in self._units] == [version for version, _ in self._applied]:
                return self._native
            if self._update_parameters():
                return self._native
        self._native = None  # the old one closes before the new one opens
        self._native = Native(self.text, sample_rate, channels, buffer_size or 0)
        self._key = shape
        self._opened_units = tuple(self._units)
        self._applied = [(unit._version, dict(unit.settings)) for unit in self._units]
        self._needs_reset = False
        return self._native

    def _update_parameters(self):
        """Sets changed parameter values on the open chain; False when a node key changed."""
        changes = []
        for index, (unit, (_, before)) in enumerate(zip(self._units, self._applied)):
            now = unit.settings
            for key in set(before) | set(now):
                if before.get(key) == now.get(key):
                    continue
                if key not in unit._identifiers or key not in now:
                    return False
                changes.append((index, key, unit._resolved(key)))
        for index, key, number in changes:
            check(lib.trellis_chain_set_parameter(self._native.pointer, index, key.encode("utf-8"), number))
        self._applied = [(unit._version, dict(unit.settings)) for unit in self._units]
        return True

    def process(self, audio, sample_rate, buffer_size=None, reset=True):
        """Processes `audio`: shape (frames,) for mono or (channels, frames); a 2-D array
        whose first dimension is over 64 and second at most 64 is (frames, channels), and
        the result comes back in that layout. float32 or float64 in, the same out, in
        the input's memory order.

        `reset=True` (the default) clears the chain's state first and compensates its
        latency: the output is aligned with the input and as long. `reset=False` streams:
        state carries over from the last call, and the output is as long as the input and
        `latency` frames late, so chunks of any length, concatenated, equal one call."""
        array = np.asarray(audio)
        if array.dtype not in (np.float32, np.float64):
            raise TypeError(f"audio must be float32 or float64, not {array.dtype}")
        if array.ndim == 1:
            layout, data = "mono", array[np.newaxis, :]
        elif array.ndim == 2:
            frames_first = array.shape[0] > 64 and array.shape[1] <= 64
            layout, data = ("frames-first", array.T) if frames_first else ("channels-first", array)
        else:
            raise ValueError(f"audio must have shape (frames,) or (channels, frames), not {array.shape}")
        channels, frames = data.shape
        native = self._open(sample_rate, channels, buffer_size)
        rows = [np.ascontiguousarray(data[channel], dtype=np.float32) for channel in range(channels)]
        if reset or self._needs_reset:
            native.reset()
        latency = native.latency if reset else 0
        output = np.empty((native.outputs, frames + latency), dtype=np.float32)
        if frames:
            native.process(rows, list(output[:, :frames]), frames)
        if latency:
            silence = [np.zeros(latency, dtype=np.float32) for _ in range(channels)]
            native.process(silence, list(output[:, frames:]), latency)
        self._needs_reset = reset
        result = output[:, latency:]
        if array.dtype != np.float32:
            result = result.astype(array.dtype)
        if layout == "mono" and native.outputs == 1:
            return np.ascontiguousarray(result[0])
        if layout == "frames-first":
            result = result.T
        if array.flags.f_contiguous and not array.flags.c_contiguous:
            return np.asfortranarray(result)
        return np.ascontiguousarray(result)

    __call__ = process

    def reset(self):
        """Clears the chain's state (delay lines, envelopes, tails); values stay."""
        if self._native is not None:
            self._native.reset()
        self._needs_reset = False

    @property
    def latency(self):
        """Frames from input to output of the chain last opened (at its rate), else at 48 kHz."""
        if self._native is not None:
            return self._native.latency
        return sum(unit.latency for unit in self._units)

    @property
    def tail(self):
        """Seconds the chain keeps sounding after its input falls silent."""
        if self._native is not None:
            return self._native.tail
        return sum(unit.tail for unit in self._units)


Pedalboard = Chain
