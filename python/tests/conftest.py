"""What the tests share: the `trellis` command they compare with, and inputs."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import trellis

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(os.path.dirname(HERE))
RATE = 48000


def cli_path():
    return os.environ.get("TRELLIS_CLI") or shutil.which("trellis") or os.path.join(REPOSITORY, ".build", "debug", "trellis")


def run_cli(*arguments, check=True):
    """`trellis ARGUMENTS`, with a deadline that ends in SIGKILL."""
    result = subprocess.run([cli_path(), *map(str, arguments)], capture_output=True, text=True, timeout=180)
    if check and result.returncode != 0:
        raise AssertionError(f"trellis {' '.join(map(str, arguments))} failed: {result.stderr}")
    return result


def noise(channels, frames, seed=1, scale=0.5):
    return np.random.default_rng(seed).uniform(-scale, scale, (channels, frames)).astype(np.float32)


def write_wav(path, audio, rate=RATE):
    with trellis.AudioFile(str(path), "w", samplerate=rate, num_channels=audio.shape[0], sample_type="float32") as file:
        file.write(audio)
    return str(path)


def read_wav(path):
    with trellis.AudioFile(str(path)) as file:
        return file.read()


def cli_chain(tmp_path, audio, stages, name="cli"):
    """What `trellis chain in.wav ! STAGES ! out.wav` writes (float32) for `audio`."""
    source = write_wav(tmp_path / f"{name}-in.wav", audio)
    output = tmp_path / f"{name}-out.wav"
    arguments = ["chain", "--no-loudness", "--sample-type", "float32", source]
    for stage in stages:
        arguments += ["!", *stage]
    run_cli(*arguments, "!", output)
    return read_wav(output)


@pytest.fixture
def stereo():
    return noise(2, RATE // 2)
