"""Chunks of any length, with state kept (reset=False), give the samples of one call."""
import numpy as np
import pytest

import trellis
from conftest import RATE, noise

CHAINS = {
    "built-in": lambda: trellis.Chain([trellis.load("eq", band0_type="lowpass", band0_freq=2000),
                                       trellis.load("compressor", threshold=-30), trellis.load("reverb")]),
    # Plugins whose output does not depend on how the host slices it (x42's fil4, which
    # glides its coefficients once a run() call, does: that is the plugin's own design).
    "lv2": lambda: trellis.Chain([trellis.load("lv2:http://calf.sourceforge.net/plugins/Compressor", threshold=0.1),
                                  trellis.load("lv2:http://drobilla.net/plugins/mda/Overdrive"),
                                  trellis.load("lv2:http://plugin.org.uk/swh-plugins/amp", gain=-3)]),
}


@pytest.mark.parametrize("size", [1, 63, 4096])
@pytest.mark.parametrize("kind", CHAINS)
def test_chunks_equal_one_call(kind, size):
    frames = 4800 if size == 1 else RATE
    audio = noise(2, frames, seed=3)
    whole = CHAINS[kind]()(audio, RATE, reset=False)
    chain = CHAINS[kind]()
    pieces = [chain(audio[:, start:start + size], RATE, reset=False) for start in range(0, frames, size)]
    assert np.array_equal(np.concatenate(pieces, axis=1), whole)


def test_a_reset_call_starts_from_silence_again():
    chain = trellis.Chain([trellis.load("reverb")])
    audio = noise(2, RATE, seed=4)
    first = chain(audio, RATE)
    chain(noise(2, RATE, seed=5), RATE, reset=False)
    assert np.array_equal(chain(audio, RATE), first)


def test_a_parameter_set_between_chunks_glides_to_its_value_from_the_next_frame():
    audio = noise(2, 4000, seed=6)
    unit = trellis.load("gain", gain=0)
    chain = trellis.Chain([unit])
    before = chain(audio[:, :2000], RATE, reset=False)
    unit.gain = -6
    after = chain(audio[:, 2000:], RATE, reset=False)
    assert np.array_equal(before, audio[:, :2000])
    # A ramped parameter glides (the unit's smoothing, a few milliseconds), then holds.
    assert not np.array_equal(after[:, :1], audio[:, 2000:2001])
    assert np.allclose(after[:, -500:], audio[:, -500:] * 10 ** (-6 / 20), atol=1e-6)
