"""The desk's pictures in docs/images, made from Sessions/live-mix.yaml at 1280x800 and
360x640. The test writes them to a scratch folder; with TRELLIS_SCREENSHOTS=docs/images
it writes the ones the docs show."""

import os
import tempfile
from pathlib import Path

from selenium.webdriver.common.by import By

from rig import ROOT, Desk, browser, open_desk


def test_screenshots_of_the_live_mix_desk():
    folder = Path(os.environ.get("TRELLIS_SCREENSHOTS") or tempfile.mkdtemp(prefix="trellis-shots-"))
    if not folder.is_absolute():
        folder = ROOT / folder
    folder.mkdir(parents=True, exist_ok=True)
    desk = Desk(session_path=ROOT / "Sessions" / "live-mix.yaml")
    try:
        for width, height in [(1280, 800), (360, 640)]:
            page = browser(width, height)
            try:
                open_desk(page, desk)
                strips = page.find_elements(By.CSS_SELECTOR, ".strip")
                assert len(strips) == 9  # eight inputs and the master
                path = folder / f"desk-{width}.png"
                page.save_screenshot(str(path))
                assert path.stat().st_size > 10_000
            finally:
                page.quit()
    finally:
        desk.stop()
