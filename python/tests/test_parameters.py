"""Parameters read and write as attributes and as a mapping, with their ranges."""
import numpy as np
import pytest

import trellis


def test_keywords_spell_dots_as_underscores():
    unit = trellis.load("eq", band0_freq=120, band0_gain=3)
    assert unit["band0.freq"] == 120
    assert unit.band0_gain == 3


def test_a_set_attribute_reads_back():
    unit = trellis.load("reverb")
    unit.decayTime = 2.5
    assert unit.decayTime == pytest.approx(2.5)
    assert unit.settings["decayTime"] == 2.5


def test_parameters_have_ranges_defaults_and_values():
    parameter = trellis.load("gain", gain=-6).parameters["gain"]
    assert (parameter.minimum, parameter.maximum, parameter.default, parameter.value) == (-120, 24, 0, -6)
    assert parameter.unit == "decibels"
    assert parameter.writable


def test_an_enumeration_takes_its_labels():
    unit = trellis.load("eq", band0_type="highshelf")
    parameter = unit.parameters["band0.type"]
    assert unit["band0.type"] == parameter.values.index("highshelf")
    unit["band0.type"] = "notch"
    assert unit["band0.type"] == parameter.values.index("notch")


def test_lv2_symbols_with_underscores_are_taken_as_written():
    unit = trellis.load("lv2:http://calf.sourceforge.net/plugins/Compressor", threshold=0.2, makeup=2)
    assert unit.threshold == pytest.approx(0.2)
    assert "makeup" in unit.parameters


def test_info_and_units_describe_what_load_makes():
    described = trellis.info("compressor")
    assert {p["identifier"] for p in described["parameters"]} == set(trellis.load("compressor").parameters)
    names = {entry.name for entry in trellis.units()}
    assert {"eq", "reverb", "compressor"} <= names
    assert any(entry.origin == "lv2" for entry in trellis.units())


def test_parameters_are_frozen_and_hashable():
    parameter = trellis.load("gain").parameters["gain"]
    with pytest.raises(AttributeError):
        parameter.maximum = 100
    assert {parameter: 1}[parameter] == 1


def test_numpy_numbers_are_settings_like_python_numbers():
    unit = trellis.load("gain", gain=np.float64(-3.5))
    unit.gain = np.float32(-4.5)
    assert unit.settings == {"gain": -4.5} and type(unit.settings["gain"]) is float
    assert np.array_equal(unit(np.ones((2, 8), np.float32), 48000),
                          trellis.load("gain", gain=-4.5)(np.ones((2, 8), np.float32), 48000))


def test_a_label_in_another_case_is_read_as_the_command_reads_it():
    unit = trellis.load("eq", band0_type="HighShelf")
    assert unit["band0.type"] == unit.parameters["band0.type"].values.index("highshelf")


def test_a_bool_sets_an_on_off_parameter():
    unit = trellis.load("eq", band0_bypass=True)
    assert unit.band0_bypass == 1
    unit.band0_bypass = False
    assert unit.band0_bypass == 0


def test_node_keys_are_settings_and_read_back():
    unit = trellis.load("eq", bypass=True, band0_gain=6)
    assert unit.bypass is True
    assert unit.settings == {"bypass": True, "band0.gain": 6}
    assert repr(unit) == '<trellis.Unit "eq" bypass=true band0.gain=6>'


def test_dir_lists_parameters_as_attributes():
    assert {"band0_freq", "band7_type", "gain"} <= set(dir(trellis.load("eq")))


def test_a_parameter_changed_between_calls_reaches_the_chain():
    audio = np.ones((2, 4800), np.float32)
    unit = trellis.load("gain", gain=-6)
    chain = trellis.Chain([unit])
    chain(audio, 48000)
    unit.gain = -12
    assert np.array_equal(chain(audio, 48000), trellis.load("gain", gain=-12)(audio, 48000))
