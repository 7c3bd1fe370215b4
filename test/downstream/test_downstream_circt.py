"""Unit tests of scripts/downstream-circt.py that need no CIRCT: its
options, its source preparation (on a small git repository made here), and
its parsing of lit's and valgrind's output. The CIRCT build itself is
opt-in (docs/TESTING.md)."""
import argparse
import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("downstream_circt",
                                              ROOT / "scripts" / "downstream-circt.py")
dc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dc)


def git(cwd, *args):
    # An old commit: git archive gives its files the commit's time.
    env = {**os.environ, "GIT_COMMITTER_DATE": "2001-09-09T01:46:40Z"}
    subprocess.run(["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@t",
                    *args], check=True, capture_output=True, env=env)


PATCH = """\
From: t <t@t>
Subject: [PATCH] change a

---
 a.txt | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-one
+{new}
"""


class SourceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        repo = self.tmp / "circt"
        (repo / "frontends" / "PyCDE").mkdir(parents=True)
        (repo / "llvm").mkdir()
        (repo / "llvm" / "big").write_text("submodule\n")
        (repo / "a.txt").write_text("one\n")
        (repo / "b.txt").write_text("two\n")
        (repo / "frontends" / "PyCDE" / "x.py").write_text("x\n")
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "base")
        git(repo, "tag", "v1")
        self.repo = repo
        self.patches = self.tmp / "patches"
        self.patches.mkdir()

    def args(self, **kw):
        a = dict(circt_src=None, circt_git=str(self.repo), ref="v1",
                 cache=str(self.tmp / "cache"))
        a.update(kw)
        return argparse.Namespace(**a)

    def write_series(self, new):
        (self.patches / "0001-a.patch").write_text(PATCH.format(new=new))
        (self.patches / "series").write_text("# comment\n0001-a.patch\n")
        return dc.series_patches(self.patches)

    def test_export_patch_and_reuse(self):
        src = dc.prepare_source(self.args(), self.write_series("patched"))
        self.assertEqual((src / "a.txt").read_text(), "patched\n")
        self.assertEqual((src / "b.txt").read_text(), "two\n")
        self.assertTrue((src / "llvm" / "big").exists())  # git archive: all of it
        key = (src.parent / "key").read_text()
        self.assertIn(subprocess.run(["git", "-C", str(self.repo), "rev-parse", "v1"],
                                     text=True, capture_output=True).stdout.strip(), key)
        # Nothing changed: the same tree, the same time stamps.
        stamps = {p: p.stat().st_mtime for p in (src / "a.txt", src / "b.txt")}
        os.utime(src / "a.txt", (1000, 1000))
        stamps[src / "a.txt"] = 1000
        again = dc.prepare_source(self.args(), dc.series_patches(self.patches))
        self.assertEqual({p: p.stat().st_mtime for p in stamps}, stamps)
        self.assertEqual(again, src)

    def test_changed_patch_touches_only_its_files(self):
        src = dc.prepare_source(self.args(), self.write_series("first"))
        os.utime(src / "a.txt", (1000, 1000))
        b_stamp = (src / "b.txt").stat().st_mtime
        src = dc.prepare_source(self.args(), self.write_series("second"))
        self.assertEqual((src / "a.txt").read_text(), "second\n")
        self.assertGreater((src / "a.txt").stat().st_mtime, 1000)  # ninja rebuilds it
        self.assertEqual((src / "b.txt").stat().st_mtime, b_stamp)

    def test_same_content_keeps_its_time_stamp(self):
        src = dc.prepare_source(self.args(), self.write_series("patched"))
        os.utime(src / "a.txt", (1000, 1000))
        patch = self.patches / "0001-a.patch"
        patch.write_text(patch.read_text().replace("change a", "change a, reworded"))
        dc.prepare_source(self.args(), dc.series_patches(self.patches))
        self.assertEqual((src / "a.txt").read_text(), "patched\n")
        self.assertEqual((src / "a.txt").stat().st_mtime, 1000)  # nothing to rebuild

    def test_file_a_patch_no_longer_changes_is_touched(self):
        # A file restored to its pristine content must look newer than the
        # objects built from its patched content.
        src = dc.prepare_source(self.args(), self.write_series("patched"))
        built = time.time()
        (self.patches / "series").write_text("")
        src = dc.prepare_source(self.args(), dc.series_patches(self.patches))
        self.assertEqual((src / "a.txt").read_text(), "one\n")
        self.assertGreaterEqual((src / "a.txt").stat().st_mtime, int(built))
        self.assertLess((src / "b.txt").stat().st_mtime, built)

    def test_ref_moved_to_an_older_commit(self):
        # A branch moved back: its files carry an older commit time than the
        # objects built from the newer content; the changed ones must not.
        git(self.repo, "checkout", "-q", "-b", "br")
        (self.repo / "b.txt").write_text("three\n")
        git(self.repo, "commit", "-qam", "newer")
        args = self.args(ref="br")
        src = dc.prepare_source(args, self.write_series("p"))
        self.assertEqual((src / "b.txt").read_text(), "three\n")
        built = time.time()
        git(self.repo, "reset", "-q", "--hard", "v1")
        src = dc.prepare_source(args, dc.series_patches(self.patches))
        self.assertEqual((src / "b.txt").read_text(), "two\n")
        self.assertGreaterEqual((src / "b.txt").stat().st_mtime, int(built))
        self.assertLess((src / "frontends" / "PyCDE" / "x.py").stat().st_mtime, built)

    def test_checkout_edits_are_picked_up(self):
        args = self.args(circt_git=None, circt_src=str(self.repo))
        src = dc.prepare_source(args, self.write_series("p"))
        self.assertEqual((src / "b.txt").read_text(), "two\n")
        (self.repo / "b.txt").write_text("edited, not committed\n")
        src = dc.prepare_source(args, dc.series_patches(self.patches))
        self.assertEqual((src / "b.txt").read_text(), "edited, not committed\n")

    def test_without_network_the_prepared_source_is_used(self):
        src = dc.prepare_source(self.args(), self.write_series("p"))
        offline = self.args(circt_git=str(self.tmp / "unreachable"))
        self.assertEqual(dc.prepare_source(offline, dc.series_patches(self.patches)), src)
        self.assertEqual((src / "a.txt").read_text(), "p\n")
        with self.assertRaisesRegex(dc.Error, "could not fetch other"):
            dc.prepare_source(self.args(circt_git=str(self.tmp / "unreachable"),
                                        ref="other"), self.write_series("p"))

    def test_patch_that_does_not_apply_leaves_the_source(self):
        src = dc.prepare_source(self.args(), self.write_series("patched"))
        key = (src.parent / "key").read_text()
        bad = PATCH.format(new="x").replace("-one", "-nothing like this")
        (self.patches / "0001-a.patch").write_text(bad)
        with self.assertRaisesRegex(dc.Error, "0001-a.patch does not apply"):
            dc.prepare_source(self.args(), dc.series_patches(self.patches))
        self.assertEqual((src / "a.txt").read_text(), "patched\n")
        self.assertEqual((src.parent / "key").read_text(), key)
        self.assertFalse((src.parent / "src.new").exists())

    def test_unknown_ref(self):
        with self.assertRaisesRegex(dc.Error, "could not fetch nope"):
            dc.prepare_source(self.args(ref="nope"), self.write_series("p"))

    def test_checkout_copy_leaves_out_llvm_and_git(self):
        src = dc.prepare_source(self.args(circt_git=None, circt_src=str(self.repo)),
                                self.write_series("patched"))
        self.assertEqual((src / "a.txt").read_text(), "patched\n")
        self.assertFalse((src / "llvm").exists())
        self.assertFalse((src / ".git").exists())
        self.assertEqual((self.repo / "a.txt").read_text(), "one\n")  # never modified

    def test_checkout_without_pycde(self):
        with self.assertRaisesRegex(dc.Error, "has no frontends/PyCDE"):
            dc.prepare_source(self.args(circt_git=None, circt_src=str(self.tmp)),
                              self.write_series("p"))

    def test_series_names_a_missing_patch(self):
        (self.patches / "series").write_text("0009-gone.patch\n")
        with self.assertRaisesRegex(dc.Error, "names 0009-gone.patch"):
            dc.series_patches(self.patches)
        with self.assertRaisesRegex(dc.Error, "does not exist"):
            dc.series_patches(self.tmp / "nowhere")


class NoSetupTest(unittest.TestCase):
    def test_tree_without_source(self):
        tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, tmp)
        with self.assertRaisesRegex(dc.Error, "holds no prepared source; run "
                                    "./setup.sh --no-demo --baseline first"):
            dc.prepared_source_key(tmp, ["./setup.sh", "--no-demo", "--baseline"])
        # A key without the source (setup.sh writes the key last) is not enough.
        (tmp / "key").write_text("k1\n")
        with self.assertRaises(dc.Error):
            dc.prepared_source_key(tmp, ["./setup.sh"])
        (tmp / "src" / "llvm").mkdir(parents=True)
        (tmp / "src" / "llvm" / "CMakeLists.txt").write_text("")
        self.assertEqual(dc.prepared_source_key(tmp, ["./setup.sh"]), "k1")


class ParseTest(unittest.TestCase):
    def test_options(self):
        opts = dc.circt_options(["-G", "Ninja", "-DLLVM_USE_LINKER=gold",
                                 "-DLLVM_CCACHE_BUILD=ON"], Path("/c"))
        self.assertNotIn("-DLLVM_USE_LINKER=gold", opts)
        self.assertEqual(opts[:3], ["-G", "Ninja", "-DLLVM_CCACHE_BUILD=ON"])
        self.assertIn("-DLLVM_EXTERNAL_CIRCT_SOURCE_DIR=/c", opts)
        self.assertIn("-DLLVM_EXTERNAL_PROJECTS=circt", opts)

    def test_lit_output(self):
        out = ("-- Testing: 3 tests, 2 workers --\n"
               "PASS: PyCDE :: test_seq.py (1 of 3)\n"
               "XFAIL: PyCDE :: test_fsm.py (2 of 3)\n"
               "UNSUPPORTED: PyCDE :: test_cocotb_testbench.py (3 of 3)\n"
               "Total Discovered Tests: 3\n")
        self.assertEqual(dc.parse_lit_output(out),
                         {"test_seq.py": "PASS", "test_fsm.py": "XFAIL",
                          "test_cocotb_testbench.py": "UNSUPPORTED"})
        self.assertEqual(dc.summarize(dc.parse_lit_output(out)),
                         {"PASS": 1, "XFAIL": 1, "UNSUPPORTED": 1})

    def test_valgrind_output(self):
        err = ("==12== Invalid read of size 8\n==12==    at 0x1: f\n"
               "==12== Invalid read of size 4\n==12== Invalid free() / delete\n"
               "==12== ERROR SUMMARY: 3 errors from 3 contexts\n")
        self.assertEqual(dc.valgrind_errors(err), {"Invalid read": 2, "Invalid free": 1})
        self.assertEqual(dc.valgrind_errors("==12== ERROR SUMMARY: 0 errors\n"), {})


if __name__ == "__main__":
    unittest.main(verbosity=2)
