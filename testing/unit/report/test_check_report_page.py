# SPDX-License-Identifier: MIT
"""testing/check-report-page.py's screenshot check can fail."""

import importlib.util
import os
import tempfile
import unittest

from common import STEPS, write_png


class ScreenshotCheck(unittest.TestCase):
    """check-report-page.py's screenshot check fails a blank page and a
    banner of the wrong colour (the checker itself can fail)."""

    def setUp(self):
        # A step of testing/, not the package: its name has a hyphen.
        self.tmp = tempfile.mkdtemp()
        spec = importlib.util.spec_from_file_location("crp", os.path.join(STEPS, "check-report-page.py"))
        assert spec is not None and spec.loader is not None
        self.crp = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.crp)

    def results(self, pixel, verdict):
        path = os.path.join(self.tmp, "s.png")
        write_png(path, 128, 64, pixel)
        got = []
        self.crp.check_png(lambda ok, text: got.append(ok), path, verdict)
        return got

    def test_reader(self):
        path = os.path.join(self.tmp, "r.png")
        write_png(path, 7, 3, lambda x, y: (x * 30, y * 80, 200))
        import pngread
        img = pngread.read(path)
        self.assertEqual((img.width, img.height), (7, 3))
        self.assertEqual(img.pixel(6, 2), (180, 160, 200))

    def test_blank_and_wrong_colour_fail(self):
        self.assertEqual(self.results(lambda x, y: (255, 255, 255), "PASS"), [False, False])

        def page(x, y):
            return (0xc6, 0x28, 0x28) if y < 16 else ((x * 7) % 256, (y * 5) % 256, 90)

        self.assertEqual(self.results(page, "FAIL"), [True, True])
        self.assertEqual(self.results(page, "PASS"), [True, False])
