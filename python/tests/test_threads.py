"""Chains in several threads at once (every call releases the GIL) give their own samples."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import trellis
from conftest import RATE, noise


def make_chain():
    return trellis.Chain([trellis.load("compressor", threshold=-30), trellis.load("reverb", decayTime=1)])


def test_chains_in_threads_give_the_samples_of_one_thread():
    inputs = [noise(2, RATE // 2, seed=seed) for seed in range(4)]
    alone = [make_chain()(audio, RATE) for audio in inputs]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda audio: make_chain()(audio, RATE), inputs))
    assert all(np.array_equal(a, b) for a, b in zip(alone, together))


def test_a_failure_in_one_thread_carries_its_own_message():
    def fail(name):
        try:
            trellis.load(name)
        except trellis.UnitError as error:
            return str(error)
    with ThreadPoolExecutor(2) as pool:
        messages = list(pool.map(fail, ["compresor", "reverbb"]))
    assert 'no unit named "compresor"' in messages[0]
    assert 'no unit named "reverbb"' in messages[1]
