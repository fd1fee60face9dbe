"""A chain pickles as its description and renders the same in another process."""
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import trellis
from conftest import RATE, noise


def render_in_child(chain, audio):
    return chain(audio, RATE)


def test_a_pickled_chain_renders_the_same_in_another_process():
    chain = trellis.Chain([trellis.load("eq", band0_type="lowshelf", band0_gain=4),
                           trellis.load("lv2:http://gareus.org/oss/lv2/fil4#stereo", gain=-2),
                           trellis.load("reverb", decayTime=1.5)])
    audio = noise(2, RATE)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        theirs = pool.submit(render_in_child, chain, audio).result(timeout=120)
    assert np.array_equal(theirs, chain(audio, RATE))


def test_a_unit_pickles_with_its_settings():
    unit = trellis.load("gain", gain=-9)
    unit.gain = -4
    copy = pickle.loads(pickle.dumps(unit))
    assert copy.name == "gain"
    assert copy.gain == -4
