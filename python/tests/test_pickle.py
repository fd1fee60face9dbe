"""A chain pickles as its description and renders the same in another process."""
import os
import pickle
import subprocess
import sys

import numpy as np

import trellis
from conftest import RATE, noise


# Another interpreter unpickles the chain and renders; its deadline ends in SIGKILL.
CHILD = """
import pickle, sys
import numpy as np
chain = pickle.load(open(sys.argv[1], "rb"))
np.save(sys.argv[3], chain(np.load(sys.argv[2]), 48000))
"""


def test_a_pickled_chain_renders_the_same_in_another_process(tmp_path):
    chain = trellis.Chain([trellis.load("eq", band0_type="lowshelf", band0_gain=4),
                           trellis.load("lv2:http://gareus.org/oss/lv2/fil4#stereo", gain=-2),
                           trellis.load("reverb", decayTime=1.5)])
    audio = noise(2, RATE)
    (tmp_path / "chain.pickle").write_bytes(pickle.dumps(chain))
    np.save(tmp_path / "in.npy", audio)
    result = subprocess.run([sys.executable, "-c", CHILD, tmp_path / "chain.pickle", tmp_path / "in.npy", tmp_path / "out.npy"],
                            capture_output=True, text=True, timeout=120, env=os.environ)
    assert result.returncode == 0, result.stderr
    theirs = np.load(tmp_path / "out.npy")
    assert np.array_equal(theirs, chain(audio, RATE))


def test_a_unit_pickles_with_its_settings():
    unit = trellis.load("gain", gain=-9)
    unit.gain = -4
    copy = pickle.loads(pickle.dumps(unit))
    assert copy.name == "gain"
    assert copy.gain == -4
