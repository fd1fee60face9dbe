"""One unit: a built-in unit or an LV2 plugin, its settings, and its parameters."""
import ctypes
import numbers
import os

from ._library import check, handle, lib, text

# The settings that set the node rather than a parameter (a session node's keys).
NODE_KEYS = frozenset({"inputs", "outputs", "channels", "input-channels", "output-channels", "state", "preset", "bypass",
                       "channel-map", "isolate", "deadline", "on-fault", "restart"})


class Frozen:
    """A record whose fields cannot change (as a frozen dataclass, without importing
    dataclasses): compared and hashed by its fields."""
    __slots__ = ()

    def __init__(self, *values, **named):
        if len(values) > len(self.__slots__) or set(named) - set(self.__slots__[len(values):]):
            raise TypeError(f"{type(self).__name__} takes the fields {', '.join(self.__slots__)}")
        named.update(zip(self.__slots__, values))
        for key in self.__slots__:
            object.__setattr__(self, key, named.get(key))

    def __setattr__(self, key, value):
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {key!r}")

    __delattr__ = __setattr__

    def _fields(self):
        return tuple(getattr(self, key) for key in self.__slots__)

    def __eq__(self, other):
        return type(other) is type(self) and other._fields() == self._fields()

    def __hash__(self):
        return hash(self._fields())

    def __reduce__(self):
        return (type(self), self._fields())

    def __repr__(self):
        fields = ", ".join(f"{key}={getattr(self, key)!r}" for key in self.__slots__ if getattr(self, key) is not None)
        return f"{type(self).__name__}({fields})"


class Parameter(Frozen):
    """A parameter as `trellis info` describes it, with its value when read."""
    __slots__ = ("identifier", "name", "minimum", "maximum", "default", "unit", "flags", "values", "value")

    @property
    def writable(self):
        return "writable" in self.flags

    @property
    def range(self):
        return (self.minimum, self.maximum)

    def __repr__(self):
        return (f"Parameter({self.identifier!r}, {self.name!r}, {self.minimum:g}...{self.maximum:g} {self.unit}, "
                f"default {self.default:g}" + ("" if self.value is None else f", value {self.value:g}") + ")")

    @classmethod
    def from_json(cls, entry):
        values, value = entry.get("values"), entry.get("value")
        return cls(entry["identifier"], entry["name"], float(entry["minimum"]), float(entry["maximum"]),
                   float(entry["defaultValue"]), entry["unit"], tuple(entry["flags"]), tuple(values) if values else None,
                   None if value is None else float(value))


def quote(word):
    """A word as the chain text takes it: in double quotes, `\\` and `"` escaped."""
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def plain(value):
    """A setting's value as the unit keeps it: numpy numbers become Python's, paths text."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def setting_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def stage_text(name, settings):
    """One stage of a chain's text: the unit and its name=value settings."""
    return " ".join([quote(name)] + [quote(f"{key}={setting_text(value)}") for key, value in settings.items()])


class Probe:
    """A one-unit chain that answers for a unit: its parameters, checked values."""

    def __init__(self, name, settings):
        self.pointer = handle(lib.trellis_chain_open(stage_text(name, settings).encode("utf-8"), 48000.0, 2, 0))

    def __del__(self):
        pointer, self.pointer = getattr(self, "pointer", None), None
        if pointer and lib is not None:
            lib.trellis_chain_close(pointer)

    def parameters(self):
        import json
        return [Parameter.from_json(entry) for entry in json.loads(text(lib.trellis_chain_parameters_json(self.pointer, 0)))]

    def set_as_written(self, key, value):
        """Sets a parameter named exactly `key` to a number; False when the unit has none
        of that name (any other refusal raises)."""
        status = lib.trellis_chain_set_parameter(self.pointer, 0, key.encode("utf-8"), float(value))
        if status == -4 and "has no parameter named" in lib.trellis_last_error().decode("utf-8", "replace"):
            return False
        check(status)
        return True


class Unit:
    """A unit by short name (`eq`), type:subtype:manufacturer triple or `lv2:URI`, with
    settings as `trellis chain` takes them: parameters by identifier and the node's keys
    (`channels`, `bypass`, `preset`, `state`, `files.NAME`). A keyword names a setting
    as written when it names one, else with `_` read as `.` (`band0_freq`).

    Parameters read and write as attributes and as a mapping (`unit["band0.freq"]`);
    calling a unit processes audio through it as a one-unit `Chain`."""

    def __init__(self, name, settings=None, **keywords):
        object.__setattr__(self, "_name", str(name))
        object.__setattr__(self, "_settings", {})
        object.__setattr__(self, "_version", 0)
        object.__setattr__(self, "_chain", None)
        object.__setattr__(self, "_known", None)
        probe = Probe(self._name, {})
        object.__setattr__(self, "_probe", probe)
        ordered, as_text = {}, False
        # Numbers for parameters named as written go straight to the unit; the rest are
        # read by the unit's parameter list (labels, `_` for `.`, node keys), and what
        # that cannot turn into a number is read by the library from the chain's text.
        items = [(True, key, value) for key, value in (settings or {}).items()]
        items += [(False, key, value) for key, value in keywords.items()]
        for exact, key, value in items:
            value = plain(value)
            if type(value) in (int, float) and probe.set_as_written(key, value):
                ordered[key] = value
                continue
            key = key if exact else self._spelling(key)
            ordered[key] = value
            parameter = self._identifiers.get(key)
            number = None if parameter is None else number_for(parameter, value)
            if number is None:
                as_text = True
            else:
                check(lib.trellis_chain_set_parameter(probe.pointer, 0, key.encode("utf-8"), number))
        if as_text:
            # Node keys, words, unknown names: the library reads them as `trellis chain`
            # does, and refuses them with its message.
            object.__setattr__(self, "_probe", Probe(self._name, ordered))
        self._settings.update(ordered)

    @property
    def _identifiers(self):
        """The unit's parameters by identifier, read once when first needed."""
        if self._known is None:
            object.__setattr__(self, "_known", {p.identifier: p for p in self._probe.parameters()})
        return self._known

    # -- names -------------------------------------------------------------------

    @property
    def name(self):
        return self._name

    @property
    def settings(self):
        """The unit's settings as given, by the names the chain text uses."""
        return dict(self._settings)

    def _spelling(self, key):
        if key in self._identifiers or key in NODE_KEYS or key.startswith("files."):
            return key
        if key.startswith("files_"):
            return "files." + key[len("files_"):]  # files_NAME: a file the unit reads
        dotted = key.replace("_", ".")
        if dotted in self._identifiers:
            return dotted
        dashed = key.replace("_", "-")
        if dashed in NODE_KEYS:
            return dashed
        lowered = key.lower()
        for identifier, parameter in self._identifiers.items():
            if identifier.lower() in (lowered, dotted.lower()) or parameter.name.lower() == lowered:
                return identifier
        return key  # unknown: the library's message names it and suggests others

    # -- parameters --------------------------------------------------------------

    @property
    def parameters(self):
        """Every parameter by identifier, with its range, default and current value."""
        return {p.identifier: p for p in self._probe.parameters()}

    def __getitem__(self, key):
        return self._value(self._spelling(key))

    def __setitem__(self, key, value):
        self._set(self._spelling(key), value)

    def __getattr__(self, attribute):
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        key = self._spelling(attribute)
        if key in self._identifiers:
            return self._value(key)
        if key in self._settings:
            return self._settings[key]
        raise AttributeError(f"{self._name} has no parameter {attribute!r}")

    def __setattr__(self, attribute, value):
        if attribute.startswith("_"):
            object.__setattr__(self, attribute, value)
            return
        self._set(self._spelling(attribute), value)

    def __dir__(self):
        names = [identifier.replace(".", "_") for identifier in self._identifiers]
        return sorted(set(list(super().__dir__()) + names))

    def _value(self, identifier):
        value = ctypes.c_double()
        check(lib.trellis_chain_get_parameter(self._probe.pointer, 0, identifier.encode("utf-8"), ctypes.byref(value)))
        return value.value

    def _set(self, key, value):
        value = plain(value)
        parameter = self._identifiers.get(key)
        number = None if parameter is None else number_for(parameter, value)
        if number is None:
            # A node key, a word, or a name: read (or refused) by the library as text.
            settings = dict(self._settings)
            settings[key] = value
            object.__setattr__(self, "_probe", Probe(self._name, settings))
        else:
            check(lib.trellis_chain_set_parameter(self._probe.pointer, 0, key.encode("utf-8"), number))
        self._settings[key] = value
        object.__setattr__(self, "_version", self._version + 1)

    def _resolved(self, key):
        """The number a parameter's setting stands for (a word as the library read it)."""
        number = number_for(self._identifiers[key], self._settings[key])
        return self._value(key) if number is None else number

    # -- processing --------------------------------------------------------------

    def process(self, audio, sample_rate, buffer_size=None, reset=True):
        """Processes audio through this unit alone (see `Chain.process`)."""
        if self._chain is None:
            from .chain import Chain
            object.__setattr__(self, "_chain", Chain([self]))
        return self._chain.process(audio, sample_rate, buffer_size=buffer_size, reset=reset)

    __call__ = process

    def reset(self):
        if self._chain is not None:
            self._chain.reset()

    @property
    def latency(self):
        """Frames from input to output: at the rate the unit last processed at (called
        as a unit), else at 48 kHz. A chain's `latency` is at the chain's rate."""
        if self._chain is not None and self._chain._native is not None:
            return self._chain.latency
        return int(check(lib.trellis_chain_latency(self._probe.pointer)))

    @property
    def tail(self):
        """Seconds the unit keeps sounding after its input falls silent."""
        return float(lib.trellis_chain_tail(self._probe.pointer))

    def __repr__(self):
        settings = "".join(f" {key}={setting_text(value)}" for key, value in self._settings.items())
        return f'<trellis.Unit "{self._name}"{settings}>'

    def __reduce__(self):
        return (Unit, (self._name, dict(self._settings)))


def number_for(parameter, value):
    """A setting's number when it is plainly one (a number, a label of an enumeration,
    true or false for an on/off parameter); None for what the library must read."""
    if isinstance(value, bool):
        if "toggled" in parameter.flags:
            return parameter.maximum if value else parameter.minimum
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and parameter.values and value in parameter.values:
        return parameter.minimum + parameter.values.index(value)
    return None


def load(name, **settings):
    """The unit `name` with `settings`: `trellis.load("eq", band0_freq=120)`."""
    return Unit(name, **settings)
