"""Failures arrive as exceptions carrying the command line's messages."""
import pytest

import trellis
from conftest import run_cli


def test_an_unknown_unit_is_a_unit_error_with_the_command_s_suggestion(tmp_path):
    with pytest.raises(trellis.UnitError) as raised:
        trellis.load("compresor")
    said = run_cli("chain", "tone", "!", "compresor", "!", tmp_path / "x.wav", check=False).stderr
    assert 'no unit named "compresor" (did you mean compressor?)' in str(raised.value)
    assert 'no unit named "compresor" (did you mean compressor?)' in said


def test_a_value_out_of_range_is_a_parameter_error_naming_the_range(tmp_path):
    with pytest.raises(trellis.ParameterError) as raised:
        trellis.load("gain", gain=100)
    said = run_cli("chain", "tone", "!", "gain", "gain=100", "!", tmp_path / "x.wav", check=False).stderr
    assert "100 is outside the range of gain, -120...24 dB" in str(raised.value)
    assert "100 is outside the range of gain, -120...24 dB" in said


def test_setting_out_of_range_later_raises_and_keeps_the_value():
    unit = trellis.load("gain", gain=-3)
    with pytest.raises(trellis.ParameterError):
        unit.gain = 50
    assert unit.gain == -3


def test_an_unknown_parameter_is_a_parameter_error():
    with pytest.raises(trellis.ParameterError, match="no parameter"):
        trellis.load("eq", band0_frq=100)


def test_a_missing_file_is_a_file_error_and_an_os_error():
    with pytest.raises(trellis.FileError) as raised:
        trellis.AudioFile("/nonexistent/in.wav")
    assert isinstance(raised.value, OSError)
    assert "/nonexistent/in.wav" in str(raised.value)


def test_a_missing_session_is_a_session_error():
    with pytest.raises(trellis.SessionError):
        trellis.render("/nonexistent/session.yaml", duration=1)
