"""Trellis from Python: effect chains of built-in units and every installed LV2 plugin on
numpy arrays, audio files, and offline renders of sessions (docs/python.md)."""
import json
from dataclasses import dataclass
from typing import Optional

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


@dataclass(frozen=True)
class UnitEntry:
    """A unit as `trellis units` lists it."""
    name: str
    triple: str
    display_name: str
    kind: str
    origin: str
    uri: Optional[str] = None
    problem: Optional[str] = None


def units():
    """Every unit: the built-in ones and every installed LV2 plugin (the first call in a
    while scans the plugins; later ones read the scan's cache)."""
    return [UnitEntry(entry["name"], entry["triple"], entry["displayName"], entry["kind"], entry["origin"],
                      entry.get("uri"), entry.get("problem"))
            for entry in json.loads(text(lib.trellis_units_json()))]


def info(name):
    """What `trellis info --json NAME` says: buses, parameters, presets, latency, tail."""
    return json.loads(text(lib.trellis_unit_info_json(str(name).encode("utf-8"))))
