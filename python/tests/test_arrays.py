"""Shapes, dtypes and memory orders come back as they went in."""
import numpy as np
import pytest

import trellis
from conftest import RATE, noise


@pytest.fixture
def chain():
    return trellis.Chain([trellis.load("eq", band0_type="highpass", band0_freq=200)])


def test_channels_first_keeps_its_shape(chain):
    audio = noise(2, 1000)
    assert chain(audio, RATE).shape == (2, 1000)


def test_frames_first_comes_back_frames_first_with_the_same_samples(chain):
    audio = noise(2, 1000)
    assert np.array_equal(chain(np.ascontiguousarray(audio.T), RATE), chain(audio, RATE).T)


def test_mono_one_dimensional_comes_back_one_dimensional():
    unit = trellis.load("lv2:http://plugin.org.uk/swh-plugins/amp", gain=6)
    audio = noise(1, 1000)[0]
    result = unit(audio, RATE)
    assert result.shape == (1000,)
    assert np.allclose(result, audio * 10 ** (6 / 20), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_dtype_comes_back(chain, dtype):
    audio = noise(2, 1000).astype(dtype)
    result = chain(audio, RATE)
    assert result.dtype == dtype
    assert np.array_equal(result.astype(np.float32), chain(audio.astype(np.float32), RATE))


def test_a_fortran_ordered_input_gives_a_fortran_ordered_output_with_the_same_samples(chain):
    audio = noise(2, 1000)
    result = chain(np.asfortranarray(audio), RATE)
    assert result.flags.f_contiguous
    assert np.array_equal(result, chain(audio, RATE))


def test_a_strided_view_processes_as_its_copy(chain):
    audio = noise(2, 2000)
    view = audio[:, ::2]
    assert np.array_equal(chain(view, RATE), chain(np.ascontiguousarray(view), RATE))


def test_integers_are_refused(chain):
    with pytest.raises(TypeError):
        chain(np.zeros((2, 10), np.int16), RATE)


def test_zero_frames_give_zero_frames(chain):
    assert chain(np.zeros((2, 0), np.float32), RATE).shape == (2, 0)
