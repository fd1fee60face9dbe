"""A chain is a list of units; what it holds is what it runs."""
import numpy as np

import trellis
from conftest import RATE, noise


def test_names_and_pairs_make_units():
    chain = trellis.Chain(["gain", ("eq", {"band0.freq": 200})])
    assert [unit.name for unit in chain] == ["gain", "eq"]
    assert chain[1].settings == {"band0.freq": 200}


def test_list_operations():
    chain = trellis.Pedalboard()
    chain.append("gain")
    chain.insert(0, trellis.load("eq"))
    reverb = trellis.load("reverb")
    chain.append(reverb)
    chain.remove(reverb)
    assert [unit.name for unit in chain] == ["eq", "gain"] and len(chain) == 2
    assert chain.pop().name == "gain"


def test_a_replaced_unit_is_the_one_that_runs():
    audio = noise(2, 1000)
    chain = trellis.Chain([trellis.load("gain", gain=-6)])
    for gain in range(-20, 0, 2):
        chain(audio, RATE)
        del chain[0]
        chain.append(trellis.load("gain", gain=gain))
        assert np.array_equal(chain(audio, RATE), trellis.load("gain", gain=gain)(audio, RATE))


def test_the_chain_text_quotes_every_word():
    chain = trellis.Chain([trellis.load("reverb", preset="Large Room"), trellis.load("gain", gain=-3.5)])
    assert chain.text == '"reverb" "preset=Large Room" ! "gain" "gain=-3.5"'


def test_an_empty_chain_passes_audio_through():
    audio = noise(2, 1000)
    assert np.array_equal(trellis.Chain()(audio, RATE), audio)


def test_latency_is_at_the_rate_last_processed():
    limiter = trellis.load("limiter")
    assert limiter.latency == 240  # 5 ms of look-ahead at 48 kHz
    limiter(noise(2, 100), 44100)
    assert limiter.latency in (220, 221)  # 5 ms at 44.1 kHz, rounded either way


def test_tail_is_the_units_tail():
    assert trellis.Chain([trellis.load("gain"), trellis.load("reverb", decayTime=3)]).tail >= 3
