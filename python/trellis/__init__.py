"""Trellis from Python: effect chains of built-in units and every installed LV2 plugin on
numpy arrays, audio files, and offline renders of sessions (docs/python.md)."""
from ._library import lib, text
from .audiofile import AudioFile
from .chain import Chain, Pedalboard
from .errors import ArgumentError, FileError, ParameterError, SessionError, TrellisError, UnitError
from .render import render, render_midi, write_midi
from .unit import Frozen as _Frozen, Parameter, Unit, load

__version__ = lib.trellis_version().decode()

__all__ = ["AudioFile", "Chain", "Pedalboard", "Unit", "Parameter", "UnitEntry", "load", "units", "info", "render",
           "render_midi", "write_midi", "TrellisError", "ArgumentError", "UnitError", "ParameterError", "FileError",
           "SessionError"]


class UnitEntry(_Frozen):
    """A unit as `trellis units` lists it (uri for LV2 plugins; problem when it cannot be made)."""
    __slots__ = ("name", "triple", "display_name", "kind", "origin", "uri", "problem")


def units():
    """Every unit: the built-in ones and every installed LV2 plugin (the first call in a
    while scans the plugins; later ones read the scan's cache)."""
    import json
    return [UnitEntry(entry["name"], entry["triple"], entry["displayName"], entry["kind"], entry["origin"],
                      entry.get("uri"), entry.get("problem"))
            for entry in json.loads(text(lib.trellis_units_json()))]


def info(name):
    """What `trellis info --json NAME` says: buses, parameters, presets, latency, tail."""
    import json
    return json.loads(text(lib.trellis_unit_info_json(str(name).encode("utf-8"))))
