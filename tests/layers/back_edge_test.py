#!/usr/bin/env python3
"""Tests scripts/check-layers on a tiny synthetic tree (run: python3 tests/layers/back_edge_test.py).

The tree uses the real docs/design/layers.txt; core <- train, serve is a peer of train.
"""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHECK = REPO / "scripts" / "check-layers"


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "docs/design").mkdir(parents=True)
        shutil.copy(REPO / "docs/design/layers.txt", self.root / "docs/design/layers.txt")
        self.write("include/dlsim/core/x.h", "#pragma once\n")
        self.write("src/core/a.cc", '#include "dlsim/core/x.h"\n')
        self.write("src/core/CMakeLists.txt", "add_library(dlsim_core a.cc)\n")
        self.write("src/train/b.cc", '// train\n#include "dlsim/core/x.h"\n#include "dlsim/train/b.h"\n')
        self.write("src/train/CMakeLists.txt",
                   "add_library(dlsim_train b.cc)\ntarget_link_libraries(dlsim_train\n  PUBLIC dlsim_core)\n")
        self.write("src/serve/c.cc", '#include "dlsim/core/x.h"\n')
        self.write("src/serve/CMakeLists.txt", "target_link_libraries(dlsim_serve PUBLIC dlsim_core)\n")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def check(self):
        proc = subprocess.run([sys.executable, str(CHECK), "--root", str(self.root)],
                              capture_output=True, text=True)
        return proc.returncode, proc.stdout + proc.stderr

    def assert_fails_with(self, *messages):
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        for message in messages:
            self.assertIn(message, out)

    def test_clean_tree_passes(self):
        rc, out = self.check()
        self.assertEqual(rc, 0, out)
        self.assertIn("check-layers: ok (4 files, 2 edges)", out)

    def test_back_edge_fails(self):
        self.write("src/core/bad.cc", '#include <vector>\n\n#include "dlsim/train/y.h"\n')
        self.assert_fails_with(
            "src/core/bad.cc:3: core includes dlsim/train/... but train is above core in docs/design/layers.txt")

    def test_peer_edge_fails(self):
        self.write("src/train/peer.cc", '#include "dlsim/serve/z.h"\n')
        self.assert_fails_with(
            "src/train/peer.cc:1: train includes dlsim/serve/... but serve is a peer of train")

    def test_missing_link_fails(self):
        self.write("src/train/d.cc", '#include "dlsim/hw/gpu.h"\n')
        self.assert_fails_with("src/train/CMakeLists.txt: train includes hw but does not link dlsim_hw")

    def test_link_to_higher_module_fails(self):
        self.write("src/core/CMakeLists.txt", "target_link_libraries(dlsim_core PRIVATE\n  dlsim_train)\n")
        self.assert_fails_with("src/core/CMakeLists.txt:2: core links dlsim_train but train is above core")

    def test_undeclared_module_fails(self):
        self.write("include/dlsim/misc/m.h", "#pragma once\n")
        self.assert_fails_with("include/dlsim/misc/: module misc is not declared in docs/design/layers.txt")


if __name__ == "__main__":
    unittest.main()
