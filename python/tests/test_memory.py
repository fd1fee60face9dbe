"""Ten minutes of stereo, processed in chunks from file to file, in under 100 MB."""
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import trellis
    folder = sys.argv[1]
    rate, chunk, minutes = 48000, 4096, 10
    rng = np.random.default_rng(7)
    with trellis.AudioFile(folder + "/long.wav", "w", samplerate=rate, num_channels=2, sample_type="float32") as out:
        for _ in range(minutes * 60):
            out.write(rng.uniform(-0.5, 0.5, (2, rate)).astype(np.float32))
    # Units that cost little in a debug build: the test is about memory, not speed.
    chain = trellis.Chain([trellis.load("eq", band0_type="highpass", band0_freq=100), trellis.load("gain", gain=-3),
                           trellis.load("lv2:http://plugin.org.uk/swh-plugins/amp", gain=-1)])
    with trellis.AudioFile(folder + "/long.wav") as source, \\
         trellis.AudioFile(folder + "/processed.wav", "w", samplerate=rate, num_channels=2) as sink:
        while source.tell() < source.frames:
            sink.write(chain(source.read(chunk), rate, reset=False))
        assert sink.frames == minutes * 60 * rate, sink.frames
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
""")


def test_ten_minutes_in_chunks_stays_under_100_mb(tmp_path):
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=300,
                            env=os.environ)
    assert result.returncode == 0, result.stderr
    peak_kilobytes = int(result.stdout.split()[-1])
    assert peak_kilobytes < 100 * 1024, f"peak resident memory {peak_kilobytes} KB"
