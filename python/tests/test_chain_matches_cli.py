"""A chain's output is `trellis chain`'s for the same input and settings, bit for bit."""
import numpy as np
import pytest

import trellis
from conftest import RATE, cli_chain, noise

EQ = {"band0.type": "lowshelf", "band0.freq": 120, "band0.gain": 3, "band1.freq": 1000, "band1.gain": -2,
      "band2.type": "highshelf", "band2.freq": 8000, "band2.gain": 2}

CASES = {
    "gain": [("gain", {"gain": -6})],
    "eq": [("eq", EQ)],
    "compressor": [("compressor", {"threshold": -24, "ratio": 4, "attackTime": 0.005, "releaseTime": 0.12})],
    "reverb": [("reverb", {"decayTime": 2, "wetDryMix": 40})],
    "distortion and delay": [("distortion", {}), ("delay", {"time": 0.05, "feedback": 30})],
    "eq bypassed": [("eq", {"band0.gain": 12, "bypass": True})],
    "reverb preset": [("reverb", {"preset": "Large Room"})],
    "x42 fil4": [("lv2:http://gareus.org/oss/lv2/fil4#stereo", {"gain": -4, "HighPass": 1, "HPfreq": 200})],
    "calf compressor then gain": [("lv2:http://calf.sourceforge.net/plugins/Compressor", {"threshold": 0.1, "ratio": 4}),
                                  ("gain", {"gain": 3})],
}


def words(settings):
    return [f"{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in settings.items()]


@pytest.mark.parametrize("case", CASES)
def test_stereo_chain_equals_the_command(tmp_path, case):
    audio = noise(2, RATE)
    chain = trellis.Chain([trellis.Unit(name, settings=settings) for name, settings in CASES[case]])
    expected = cli_chain(tmp_path, audio, [[name, *words(settings)] for name, settings in CASES[case]])
    # The command writes the chain's output as it comes, `latency` frames late; a call
    # (reset=True) gives it aligned with the input.
    aligned = chain(audio, RATE)
    latency = chain.latency
    assert np.array_equal(aligned[:, :RATE - latency], expected[:, latency:])
    assert np.array_equal(chain(audio, RATE, reset=False), expected)


def test_a_mono_plugin_runs_on_each_channel_of_a_stereo_input(tmp_path):
    audio = noise(2, RATE)
    unit = trellis.load("lv2:http://plugin.org.uk/swh-plugins/amp", gain=-6)
    expected = cli_chain(tmp_path, audio, [["lv2:http://plugin.org.uk/swh-plugins/amp", "gain=-6"]])
    result = unit(audio, RATE)
    assert result.shape == (2, RATE)
    assert np.array_equal(result, expected)


def test_a_mono_input_through_a_stereo_unit_comes_out_as_the_command_writes_it(tmp_path):
    audio = noise(1, RATE)
    expected = cli_chain(tmp_path, audio, [["reverb", "wetDryMix=50"]])
    result = trellis.load("reverb", wetDryMix=50)(audio[0], RATE, reset=False)
    assert result.shape == expected.squeeze().shape
    assert np.array_equal(result, expected.squeeze())


def test_a_latent_unit_streams_late_and_is_aligned_after_a_reset(tmp_path):
    audio = noise(2, RATE)
    limiter = trellis.load("limiter", ceiling=-6)
    latency = limiter.latency
    assert latency > 0
    padded = np.concatenate([audio, np.zeros((2, latency), np.float32)], axis=1)
    expected = cli_chain(tmp_path, padded, [["limiter", "ceiling=-6"]])
    assert np.array_equal(limiter(audio, RATE, reset=False), expected[:, :RATE])
    assert np.array_equal(limiter(audio, RATE, reset=True), expected[:, latency:])


def test_a_last_unit_asking_for_two_channels_makes_a_mono_input_stereo_as_the_command_does(tmp_path):
    audio = noise(1, RATE)
    expected = cli_chain(tmp_path, audio, [["reverb", "wetDryMix=50", "output-channels=2"]])
    result = trellis.load("reverb", wetDryMix=50, output_channels=2)(audio[0], RATE)
    assert expected.shape == result.shape == (2, RATE)
    assert np.array_equal(result, expected)
