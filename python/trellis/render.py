"""Offline renders of sessions and of instruments, into numpy arrays."""
import os

from ._library import check, encode, lib
from .audiofile import AudioFile, channels_first
from .unit import Unit, stage_text


def _read(path):
    with AudioFile(path) as rendered:
        return rendered.read(), rendered.samplerate


def render(session, inputs=None, duration=None, return_sample_rate=False):
    """Renders a session file as `trellis render` does, into float32 (channels, frames).
    `inputs` maps a JACK input port of the session to a file path or to `(audio,
    sample_rate)`; other inputs are silent. `duration` in seconds; None for as long as
    the session's players play. With `return_sample_rate`, returns (audio, rate)."""
    import ctypes
    import tempfile
    with tempfile.TemporaryDirectory(prefix="trellis-render-") as folder:
        assignments = []
        for index, (port, value) in enumerate((inputs or {}).items()):
            if isinstance(value, (str, bytes, os.PathLike)):
                path = os.fsdecode(value)
            else:
                audio, rate = value
                audio = channels_first(audio)
                path = os.path.join(folder, f"input-{index}.wav")
                with AudioFile(path, "w", samplerate=rate, num_channels=audio.shape[0], sample_type="float32") as file:
                    file.write(audio)
            assignments.append(f"{port}={path}".encode("utf-8"))
        output = os.path.join(folder, "render.caf")
        table = (len(assignments) * ctypes.c_char_p)(*assignments)
        check(lib.trellis_render_session(encode(session), table, len(assignments), float(duration or 0), output.encode("utf-8")))
        audio, rate = _read(output)
    return (audio, rate) if return_sample_rate else audio


def _variable_length(value):
    data = [value & 0x7F]
    value >>= 7
    while value:
        data.insert(0, (value & 0x7F) | 0x80)
        value >>= 7
    return bytes(data)


def write_midi(path, notes, ticks_per_quarter=480):
    """A format-0 Standard MIDI File at 120 BPM of `notes`: (pitch, velocity,
    start_seconds, length_seconds[, channel])."""
    import struct
    ticks_per_second = ticks_per_quarter * 2
    events = []
    for note in notes:
        pitch, velocity, start, length = note[:4]
        channel = note[4] if len(note) > 4 else 0
        on, off = round(start * ticks_per_second), round((start + length) * ticks_per_second)
        events.append((on, 1, bytes([0x90 | channel, int(pitch), int(velocity)])))
        events.append((off, 0, bytes([0x80 | channel, int(pitch), 0])))
    events.sort(key=lambda event: (event[0], event[1]))
    track, now = bytearray(b"\x00\xff\x51\x03\x07\xa1\x20"), 0  # tempo 500000 µs a quarter
    for tick, _, message in events:
        track += _variable_length(tick - now) + message
        now = tick
    track += b"\x00\xff\x2f\x00"
    with open(path, "wb") as file:
        file.write(b"MThd" + struct.pack(">IHHH", 6, 0, 1, ticks_per_quarter))
        file.write(b"MTrk" + struct.pack(">I", len(track)) + track)


def render_midi(unit, midi, duration=None, sample_rate=48000):
    """Plays a MIDI file (a path) or notes ((pitch, velocity, start_s, length_s), ...)
    into an instrument (a `Unit`, a name, or a `Chain` whose first unit is one), as
    `trellis chain song.mid ! UNIT ! out` does: float32 (channels, frames), as long as
    `duration` seconds or the song and its release."""
    import tempfile
    if hasattr(unit, "text"):
        units = unit.text
    else:
        unit = unit if isinstance(unit, Unit) else Unit(unit)
        units = stage_text(unit.name, unit.settings)
    with tempfile.TemporaryDirectory(prefix="trellis-midi-") as folder:
        if isinstance(midi, (str, bytes, os.PathLike)):
            path = os.fsdecode(midi)
        else:
            path = os.path.join(folder, "notes.mid")
            write_midi(path, midi)
        output = os.path.join(folder, "render.caf")
        check(lib.trellis_render_chain(encode(path), units.encode("utf-8"), float(sample_rate), float(duration or 0),
                                       output.encode("utf-8")))
        audio, _ = _read(output)
    return audio
