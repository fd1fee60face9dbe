"""Issue 40: trellis' Python package beside Spotify's pedalboard on the same work, in
one process per tool, interleaved round by round: 60 s of stereo float32 noise through a
gain, three biquads, a limiter, a compressor and a reverb, best of ROUNDS, in ns per
frame; then start-up (import plus the first call on 0.1 s, in a fresh interpreter), and
a chain of LV2 plugins pedalboard cannot load. Prints one tab-separated row per figure."""
import os
import subprocess
import sys
import time

import numpy as np

ROUNDS = int(os.environ.get("ROUNDS", "5"))
SECONDS = int(os.environ.get("SECONDS_LONG", "60"))
RATE = 48000

import pedalboard  # noqa: E402
import trellis  # noqa: E402

EQ3 = {"band0.type": "lowshelf", "band0.freq": 120, "band0.gain": 3,
       "band1.type": "peaking", "band1.freq": 1000, "band1.gain": -2,
       "band2.type": "highshelf", "band2.freq": 8000, "band2.gain": 2}

# (case, trellis chain, pedalboard board): the same job with the same settings where
# both have them (a reverb of each one's own design at a 1.2 s-ish room).
CASES = [
    ("gain", lambda: trellis.Chain([trellis.load("gain", gain=-6)]),
     lambda: pedalboard.Pedalboard([pedalboard.Gain(gain_db=-6)])),
    ("eq3", lambda: trellis.Chain([trellis.Unit("eq", settings=EQ3)]),
     lambda: pedalboard.Pedalboard([pedalboard.LowShelfFilter(120, 3), pedalboard.PeakFilter(1000, -2),
                                    pedalboard.HighShelfFilter(8000, 2)])),
    ("limiter", lambda: trellis.Chain([trellis.load("limiter", ceiling=-6, release=100)]),
     lambda: pedalboard.Pedalboard([pedalboard.Limiter(threshold_db=-6, release_ms=100)])),
    ("compressor", lambda: trellis.Chain([trellis.load("compressor", threshold=-24, ratio=4, attackTime=0.005, releaseTime=0.12)]),
     lambda: pedalboard.Pedalboard([pedalboard.Compressor(threshold_db=-24, ratio=4, attack_ms=5, release_ms=120)])),
    ("reverb", lambda: trellis.Chain([trellis.load("reverb", wetDryMix=33)]),
     lambda: pedalboard.Pedalboard([pedalboard.Reverb(room_size=0.5, wet_level=0.33, dry_level=0.67)])),
]

LV2_CHAIN = ["lv2:http://calf.sourceforge.net/plugins/Compressor", "lv2:http://gareus.org/oss/lv2/fil4#stereo",
             "lv2:https://github.com/michaelwillis/dragonfly-reverb"]


def best_time(process, audio):
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        process(audio, RATE)
        best = min(best, time.perf_counter() - start)
    return best


def startup(tool):
    code = {
        "trellis": "import trellis; trellis.load('gain', gain=-6)(x, 48000)",
        "pedalboard": "import pedalboard; pedalboard.Gain(gain_db=-6)(x, 48000)",
    }[tool]
    script = ("import time, numpy as np; x = np.zeros((2, 4800), np.float32); t = time.perf_counter(); "
              + code + "; print(time.perf_counter() - t)")
    times = [float(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True).stdout)
             for _ in range(ROUNDS)]
    return min(times)


def main():
    rng = np.random.default_rng(40)
    audio = (rng.uniform(-0.5, 0.5, (2, RATE * SECONDS))).astype(np.float32)
    frames = audio.shape[1]
    for case, make_trellis, make_board in CASES:
        ours, theirs = make_trellis(), make_board()
        ours(audio[:, :RATE], RATE)  # opens the chain: its first call is start-up, measured below
        times = {"trellis": float("inf"), "pedalboard": float("inf")}
        for _ in range(ROUNDS):  # interleaved, so a neighbour's burst falls on both alike
            for tool, process in (("trellis", ours), ("pedalboard", theirs)):
                start = time.perf_counter()
                process(audio, RATE)
                times[tool] = min(times[tool], time.perf_counter() - start)
        for tool, seconds in times.items():
            print(f"{case}\t{tool}\t{seconds * 1e9 / frames:.2f}", flush=True)
    for tool in ("trellis", "pedalboard"):
        print(f"start-up\t{tool}\t{startup(tool) * 1000:.1f}", flush=True)
    chain = trellis.Chain([trellis.load(name) for name in LV2_CHAIN])
    chain(audio[:, :RATE], RATE)
    print(f"lv2-chain\ttrellis\t{best_time(chain, audio) * 1e9 / frames:.2f}", flush=True)
    refused = 0
    for bundle in ("/usr/lib/lv2/calf.lv2", "/usr/lib/lv2/fil4.lv2", "/usr/lib/lv2/dragonfly-reverb.lv2"):
        try:
            pedalboard.load_plugin(bundle)
        except Exception:  # pedalboard hosts VST3 and Audio Units, not LV2
            refused += 1
    print(f"lv2-chain\tpedalboard\tcannot load ({refused} of 3 bundles refused)", flush=True)


if __name__ == "__main__":
    main()
