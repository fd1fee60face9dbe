"""Audio files: round trips, chunks, rates, and refusals."""
import numpy as np
import pytest

import trellis
from conftest import RATE, noise, run_cli


@pytest.mark.parametrize("extension,tolerance", [("wav", 0), ("flac", 2 ** -21), ("ogg", 0.02)])
def test_a_written_file_reads_back(tmp_path, extension, tolerance):
    # A 440 Hz tone: what a lossy codec keeps well.
    audio = np.tile(0.4 * np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE), (2, 1)).astype(np.float32)
    path = tmp_path / f"round.{extension}"
    with trellis.AudioFile(path, "w", samplerate=RATE, num_channels=2) as file:
        file.write(audio)
    with trellis.AudioFile(path) as file:
        assert (file.samplerate, file.num_channels, file.frames) == (RATE, 2, RATE)
        back = file.read()
    assert np.max(np.abs(back - audio)) <= tolerance


def test_chunked_reads_equal_one_read(tmp_path):
    audio = noise(2, 10000)
    path = tmp_path / "chunks.wav"
    with trellis.AudioFile(path, "w", samplerate=RATE, num_channels=2, sample_type="float32") as file:
        for start in range(0, 10000, 999):
            file.write(audio[:, start:start + 999])
    with trellis.AudioFile(path) as file:
        pieces = []
        while file.tell() < file.frames:
            pieces.append(file.read(777))
    assert np.array_equal(np.concatenate(pieces, axis=1), audio)


def test_seek_then_read_gives_the_frames_from_there(tmp_path):
    audio = noise(1, 5000)
    path = tmp_path / "seek.wav"
    with trellis.AudioFile(path, "w", samplerate=RATE, num_channels=1, sample_type="float32") as file:
        file.write(audio)
    with trellis.AudioFile(path) as file:
        file.seek(1234)
        assert np.array_equal(file.read(10), audio[:, 1234:1244])


def test_resampled_to_half_the_rate_is_half_as_long_and_matches_the_command(tmp_path):
    audio = noise(2, RATE)
    path = tmp_path / "in.wav"
    with trellis.AudioFile(path, "w", samplerate=RATE, num_channels=2, sample_type="float32") as file:
        file.write(audio)
    with trellis.AudioFile(path).resampled_to(24000) as file:
        assert file.frames == RATE // 2
        ours = file.read()
    run_cli("chain", "--no-loudness", "--sample-type", "float32", "--sample-rate", 24000, path, "!", "gain", "!", tmp_path / "cli.wav")
    with trellis.AudioFile(tmp_path / "cli.wav") as file:
        assert np.array_equal(file.read(), ours)


def test_writing_where_no_file_can_be_is_a_file_error(tmp_path):
    with pytest.raises(trellis.FileError):
        trellis.AudioFile(tmp_path / "missing-folder" / "x.wav", "w", samplerate=RATE, num_channels=2)


def test_a_quality_for_wav_is_refused(tmp_path):
    with pytest.raises(trellis.FileError, match="Vorbis"):
        trellis.AudioFile(tmp_path / "x.wav", "w", samplerate=RATE, num_channels=2, quality=0.5)


def test_frames_first_float64_writes_as_channels_first(tmp_path):
    audio = noise(2, 1000)
    with trellis.AudioFile(tmp_path / "t.wav", "w", samplerate=RATE, num_channels=2, sample_type="float32") as file:
        file.write(audio.T.astype(np.float64))
        assert file.frames == 1000
    with trellis.AudioFile(tmp_path / "t.wav") as file:
        assert np.array_equal(file.read(), audio)


def test_integer_samples_are_refused(tmp_path):
    with trellis.AudioFile(tmp_path / "t.wav", "w", samplerate=RATE, num_channels=1) as file:
        with pytest.raises(TypeError):
            file.write(np.zeros(10, np.int16))


def test_reading_a_file_open_to_write_is_refused(tmp_path):
    with trellis.AudioFile(tmp_path / "t.wav", "w", samplerate=RATE, num_channels=1) as file:
        with pytest.raises(ValueError):
            file.read()
    assert file.closed


def test_samplerate_in_read_mode_converts(tmp_path):
    path = tmp_path / "in.wav"
    with trellis.AudioFile(path, "w", samplerate=RATE, num_channels=1, sample_type="float32") as file:
        file.write(noise(1, RATE))
    with trellis.AudioFile(path, samplerate=16000) as file:
        assert (file.samplerate, file.frames) == (16000, 16000)
        assert file.read().shape == (1, 16000)
