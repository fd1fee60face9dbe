"""Failures arrive as exceptions carrying the command line's messages."""
import numpy as np
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


def test_a_bad_enumeration_label_is_refused_with_the_command_s_message(tmp_path):
    with pytest.raises(trellis.ParameterError) as raised:
        trellis.load("eq", band0_type="shelf")
    said = run_cli("chain", "--duration", 0.1, "tone", "!", "eq", "band0.type=shelf", "!", tmp_path / "x.wav", check=False).stderr
    message = 'expected a value for band0.type (peaking, lowshelf, highshelf, lowpass, highpass, bandpass, notch, allpass or an index), found "shelf"'
    assert message in str(raised.value)
    assert message in said


def test_an_unreadable_input_file_has_the_command_s_message(tmp_path):
    junk = tmp_path / "junk.wav"
    junk.write_text("not audio")
    with pytest.raises(trellis.FileError) as raised:
        trellis.AudioFile(junk)
    said = run_cli("chain", junk, "!", "gain", "!", tmp_path / "x.wav", check=False).stderr
    assert f"cannot open '{junk}': Format not recognised." in str(raised.value)
    assert f"cannot open '{junk}': Format not recognised." in said


def test_too_many_channels_is_an_argument_error():
    with pytest.raises(trellis.ArgumentError, match="1 to 64"):
        trellis.load("gain")(np.zeros((65, 100), np.float32), 48000)
