#!/usr/bin/env python3
#  Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
#  Exceptions.
"""Writes a wheel of a built `mlir` package (the patched MLIR Python bindings
with `mlir.weakref`), for `pip install --no-index --no-deps`:

  make-wheel.py PACKAGE_ROOT OUT_DIR --llvm-version 23.1.1 --series HASH

PACKAGE_ROOT is `<build>/python_packages/mlir_core` (it holds `mlir/`). The
wheel is named `mlir_weakref-<llvm version>+series.<HASH>-<tags>.whl`: the
local version part says which patch series it was built from. Its native
libraries are those of `mlir/_mlir_libs`, which find one another through
`$ORIGIN`; a symbolic link is stored as a copy of its target (wheels hold no
links). Only the standard library is used (no setuptools, no network).
Prints the wheel's path.
"""
import argparse
import base64
import hashlib
import os
import sys
import sysconfig
import zipfile
from pathlib import Path

NAME = "mlir_weakref"


def tags():
    """The interpreter, ABI and platform tags of the running interpreter."""
    version = f"{sys.version_info.major}{sys.version_info.minor}"
    abi = f"cp{version}" + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"cp{version}", abi, platform


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package_root", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--llvm-version", required=True)
    parser.add_argument("--series", required=True,
                        help="hash of the patch series (alphanumeric)")
    args = parser.parse_args()

    package = args.package_root / "mlir"
    for required in ("ir.py", "weakref.py", "_mlir_libs"):
        if not (package / required).exists():
            sys.exit(f"make-wheel: {package} has no {required}: "
                     "is it a built mlir package with mlir.weakref?")
    if not args.series.isalnum():
        sys.exit(f"make-wheel: --series must be alphanumeric, got {args.series!r}")

    version = f"{args.llvm_version}+series.{args.series}"
    python_tag, abi_tag, platform_tag = tags()
    wheel_tag = f"{python_tag}-{abi_tag}-{platform_tag}"
    dist_info = f"{NAME}-{version}.dist-info"
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        f"Name: {NAME.replace('_', '-')}",
        f"Version: {version}",
        f"Summary: MLIR {args.llvm_version} Python bindings (the `mlir` package) "
        "built with the mlir-weakref patch series, and mlir.weakref",
        "License: Apache-2.0 WITH LLVM-exception",
        f"Requires-Python: =={sys.version_info.major}.{sys.version_info.minor}.*",
        "Requires-Dist: numpy",
        "",
        f"The `mlir` package of LLVM {args.llvm_version}, patched with the "
        f"mlir-weakref series {args.series}: Python objects that refer to IR "
        "raise once it is destroyed instead of reading freed memory. Includes "
        "mlir.weakref (weak operation references, weak containers, erasure "
        "provenance).",
        "",
    ])
    wheel = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: mlir-weakref scripts/make-wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: {wheel_tag}",
        "",
    ])

    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"{NAME}-{version}-{wheel_tag}.whl"
    tmp = path.with_suffix(".tmp")
    records = []
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as whl:
        def add(name, data, mode=0o644):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(info, data)
            records.append(record_line(name, data))

        for file in sorted(package.rglob("*")):
            if "__pycache__" in file.parts or file.is_dir():
                continue
            data = file.resolve().read_bytes()
            mode = 0o755 if os.access(file, os.X_OK) else 0o644
            add(file.relative_to(args.package_root).as_posix(), data, mode)
        add(f"{dist_info}/METADATA", metadata.encode())
        add(f"{dist_info}/WHEEL", wheel.encode())
        add(f"{dist_info}/top_level.txt", b"mlir\n")
        record = "\n".join(records + [f"{dist_info}/RECORD,,"]) + "\n"
        whl.writestr(f"{dist_info}/RECORD", record)
    # Wheels of earlier series of this release and interpreter go away.
    for old in args.out_dir.glob(f"{NAME}-{args.llvm_version}+*-{wheel_tag}.whl"):
        if old != path:
            old.unlink()
    tmp.replace(path)
    print(path)


if __name__ == "__main__":
    main()
