# -*- Python -*-
# lit configuration for mlir-weakref, in the style of MLIR's.

import os
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MLIR_WEAKREF"
# The internal shell (LLVM 23's lit refuses external execution by default).
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".c", ".py"]
config.excludes = [
    "CMakeLists.txt",
    "lit.cfg.py",
    "lit.site.cfg.py",
    "Inputs",
    "repo",
    "support",
    "fuzz",
    "free-threaded",
    # ctest downstream-standalone runs these against its own package.
    "downstream",
    "run_upstream.py",
    "helpers.py",
]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.weakref_obj_root, "test")

# In an ASan build, Python scripts that load the instrumented extension or C
# library need the ASan runtime preloaded, with libstdc++ (Python does not
# link it, and ASan must intercept C++ throws), and leak detection off
# (Python itself leaks by design).
python = config.python_executable
sanitizer = config.llvm_use_sanitizer.lower()
if "address" in sanitizer:
    config.available_features.add("asan")
    preload = " ".join(
        subprocess.check_output(
            [config.cxx_compiler, f"-print-file-name={lib}"], text=True
        ).strip()
        for lib in ("libasan.so", "libstdc++.so")
    )
    python = f"env 'LD_PRELOAD={preload}' ASAN_OPTIONS=detect_leaks=0 {python}"
if "thread" in sanitizer:
    config.available_features.add("tsan")
config.substitutions.append(("%PYTHON", python))
# The examples (the Python demo and its input).
config.substitutions.append(
    ("%examples", os.path.join(os.path.dirname(config.test_source_root), "examples"))
)
# The shared library that exports the whole C API, for ctypes.
config.substitutions.append(("%weakref_c_lib", config.weakref_c_lib))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# FileCheck and not come from the LLVM tools directory; everything else from
# this project's build.
tools = [
    ToolSubst("FileCheck", unresolved="fatal"),
    ToolSubst("not", unresolved="fatal"),
    ToolSubst("weakref-demo", unresolved="fatal"),
    ToolSubst("weakref-opt", unresolved="fatal"),
    ToolSubst("weakref-capi-test", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(
    tools, [config.weakref_tools_dir, config.filecheck_dir]
)
# The drivers' erasure checks through MlirOptMain (23.1.1: test/erasure-checks).
if os.path.exists(os.path.join(config.weakref_tools_dir, "erasure-check-opt")):
    config.available_features.add("erasure-checks")
    llvm_config.add_tool_substitutions(
        [ToolSubst("erasure-check-opt", unresolved="fatal")],
        [config.weakref_tools_dir],
    )

# Tests of the mlir Python package built by this project.
if config.python_package_root:
    config.available_features.add("python-bindings")
    config.environment["PYTHONPATH"] = config.python_package_root
    # Python callables as rewrite patterns (RewritePatternSet): not in
    # 19.1.7's bindings.
    if int(config.llvm_version_major) >= 23:
        config.available_features.add("python-rewrite-patterns")
