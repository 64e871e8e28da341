"""The HTML report in a real browser engine (Debian's chromium, headless): the page renders, the
console stays quiet, and the embedded figure loads: its first line's pixels are on screen."""
import shutil
import subprocess

import matplotlib.image
import numpy as np

from test_plots import plot

FIRST_LINE_COLOUR = np.array([31, 119, 180]) / 255  # matplotlib's C0, busbw's first curve


def screenshot(page, png):
    """chromium's screenshot of `page` and its log (console messages read INFO:CONSOLE)."""
    chromium = shutil.which("chromium")
    assert chromium, "chromium is missing: ci/setup installs it"
    # A fresh profile each time; the virtual time budget lets the page settle (the embedded
    # images decode asynchronously) before the screenshot is taken.
    done = subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                           f"--user-data-dir={png.parent / 'chromium-profile'}",
                           "--virtual-time-budget=10000", "--hide-scrollbars",
                           "--window-size=1400,2400", "--enable-logging=stderr", "--v=1",
                           f"--screenshot={png}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return matplotlib.image.imread(png)[:, :, :3], done.stderr


def coloured_pixels(image):
    return int(np.all(np.abs(image - FIRST_LINE_COLOUR) < 0.08, axis=2).sum())


def test_the_report_renders_with_its_figures_and_no_console_message(files, tmp_path):
    done = plot(files["ranks"], "-o", tmp_path, "--figures", "busbw", "--report")
    assert done.returncode == 0, done.stderr
    image, log = screenshot(tmp_path / "ranks-report.html", tmp_path / "report.png")
    assert "CONSOLE" not in log, [line for line in log.splitlines() if "CONSOLE" in line]
    # The figure is embedded at its own size (1100 px wide, under the page's width), so the
    # screen shows its lines pixel for pixel: as many of them as the PNG file has.
    in_file = coloured_pixels(matplotlib.image.imread(tmp_path / "ranks-busbw.png")[:, :, :3])
    on_screen = coloured_pixels(image)
    assert in_file > 0 and on_screen >= 0.9 * in_file, (on_screen, in_file)

    # The same checks see a broken page: an image that does not decode, a console error.
    broken = tmp_path / "broken.html"
    broken.write_text('<html><body><script>console.error("broken")</script>'
                      '<img src="data:image/png;base64,AAAA"></body></html>')
    image, log = screenshot(broken, tmp_path / "broken.png")
    assert "CONSOLE" in log and coloured_pixels(image) == 0
