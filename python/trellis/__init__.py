"""Trellis from Python: effect chains of built-in units and every installed LV2 plugin on
numpy arrays, audio files, and offline renders of sessions (docs/python.md)."""
from ._library import lib, text
from .audiofile import AudioFile
from .chain import Chain, Pedalboard
from .errors import ArgumentError, FileError, ParameterError, SessionError, TrellisError, UnitError
from .render import render, render_midi, write_midi
from .unit import Parameter, Unit, load

__version__ = lib.trellis_version().decode()

__all__ = ["AudioFile", "Chain", "Pedalboard", "Unit", "Parameter", "UnitEntry", "load", "units", "info", "render",
           "render_midi", "write_midi", "TrellisError", "ArgumentError", "UnitError", "ParameterError", "FileError",
           "SessionError"]


class UnitEntry:
    """A unit as `trellis units` lists it."""
    __slots__ = ("name", "triple", "display_name", "kind", "origin", "uri", "problem")

    def __init__(self, name, triple, display_name, kind, origin, uri=None, problem=None):
        self.name, self.triple, self.display_name, self.kind = name, triple, display_name, kind
        self.origin, self.uri, self.problem = origin, uri, problem

    def __eq__(self, other):
        return isinstance(other, UnitEntry) and all(getattr(self, key) == getattr(other, key) for key in self.__slots__)

    def __repr__(self):
        fields = ", ".join(f"{key}={getattr(self, key)!r}" for key in self.__slots__ if getattr(self, key) is not None)
        return f"UnitEntry({fields})"


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
