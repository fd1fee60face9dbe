"""Parameters read and write as attributes and as a mapping, with their ranges."""
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
