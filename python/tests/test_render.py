"""Sessions and instruments render as the command renders them."""
import numpy as np

import trellis
from conftest import RATE, noise, read_wav, run_cli, write_wav

SESSION = """version: 1
defaults: { sample-rate: 48000, block-size: 256 }
jack: { inputs: [voice] }
nodes:
  in: { unit: input, channels: 1 }
  eq: { unit: eq, channels: 1, parameters: { band0.type: highpass, band0.freq: 150 } }
  echo: { unit: delay, channels: 1, parameters: { time: 0.1, feedback: 40 } }
  out: { unit: output, channels: 1 }
connections:
  - in -> eq -> echo -> out
"""


def test_a_session_with_a_named_input_renders_as_the_command_does(tmp_path):
    session = tmp_path / "voice.yaml"
    session.write_text(SESSION)
    voice = write_wav(tmp_path / "voice.wav", noise(1, RATE))
    run_cli("render", session, "--input", f"voice={voice}", "--duration", 1, "--no-loudness", "--sample-type", "float32",
            "-o", tmp_path / "cli.wav")
    ours = trellis.render(session, inputs={"voice": voice}, duration=1)
    assert np.array_equal(ours, read_wav(tmp_path / "cli.wav"))


def test_an_input_given_as_an_array_is_the_same_as_its_file(tmp_path):
    session = tmp_path / "voice.yaml"
    session.write_text(SESSION)
    audio = noise(1, RATE)
    voice = write_wav(tmp_path / "voice.wav", audio)
    from_array, rate = trellis.render(session, inputs={"voice": (audio[0], RATE)}, duration=1, return_sample_rate=True)
    assert rate == RATE
    assert np.array_equal(from_array, trellis.render(session, inputs={"voice": voice}, duration=1))


def test_notes_into_an_instrument_render_as_the_command_renders_their_midi_file(tmp_path):
    notes = [(60, 100, 0.0, 0.5), (64, 90, 0.25, 0.5), (67, 80, 0.5, 0.5)]
    song = tmp_path / "song.mid"
    trellis.write_midi(song, notes)
    ours = trellis.render_midi(trellis.load("sampler", program=40), notes, duration=1.5)
    run_cli("chain", "--no-loudness", "--sample-type", "float32", "--duration", 1.5, song, "!", "sampler", "program=40", "!",
            tmp_path / "cli.wav")
    assert ours.shape == (2, int(1.5 * RATE))
    assert np.max(np.abs(ours)) > 0.01
    assert np.array_equal(ours, read_wav(tmp_path / "cli.wav"))


def test_an_lv2_instrument_plays_the_notes():
    ours = trellis.render_midi("lv2:http://drobilla.net/plugins/mda/EPiano", [(57, 100, 0.0, 0.4)], duration=1)
    assert ours.shape == (2, RATE)
    assert np.max(np.abs(ours[:, :RATE // 2])) > 0.01


def test_an_lv2_instrument_without_a_duration_renders_the_song_and_its_release_as_the_command(tmp_path):
    notes = [(57, 100, 0.0, 0.4), (64, 80, 0.2, 0.3)]
    song = tmp_path / "song.mid"
    trellis.write_midi(song, notes)
    # mda's Piano: its EPiano cross-fades its (static) sample loops again in every new
    # instance, so a process that made one before sounds a little different.
    piano = "lv2:http://drobilla.net/plugins/mda/Piano"
    ours = trellis.render_midi(piano, song)
    run_cli("chain", "--no-loudness", "--sample-type", "float32", song, "!", piano, "!", tmp_path / "cli.wav")
    assert ours.shape[1] >= int(0.5 * RATE)
    assert np.array_equal(ours, read_wav(tmp_path / "cli.wav"))


def test_notes_into_a_chain_render_as_the_command_renders_the_chain(tmp_path):
    notes = [(60, 100, 0.0, 0.3)]
    song = tmp_path / "song.mid"
    trellis.write_midi(song, notes)
    chain = trellis.Chain([trellis.load("sampler"), trellis.load("gain", gain=-6)])
    ours = trellis.render_midi(chain, notes, duration=0.5)
    run_cli("chain", "--no-loudness", "--sample-type", "float32", "--duration", 0.5, song, "!", "sampler", "!", "gain",
            "gain=-6", "!", tmp_path / "cli.wav")
    assert np.array_equal(ours, read_wav(tmp_path / "cli.wav"))
