"""The library's failures as exceptions, with the messages the `trellis` command gives."""


class TrellisError(Exception):
    """A failure of Trellis' engine; its text is the command line's."""


class ArgumentError(TrellisError, ValueError):
    """A bad argument: a channel count, a length, a rate out of range."""


class UnitError(TrellisError, LookupError):
    """A unit no one knows (the message suggests names), or one that could not be made."""


class ParameterError(TrellisError, ValueError):
    """An unknown parameter, or a value out of its range (the message gives the range)."""


class FileError(TrellisError, OSError):
    """A file that cannot be read or written."""


class SessionError(TrellisError):
    """A session that cannot be loaded or rendered."""


_BY_STATUS = {-2: ArgumentError, -3: UnitError, -4: ParameterError, -5: FileError, -6: SessionError}


def for_status(status, message):
    return _BY_STATUS.get(status, TrellisError)(message)
