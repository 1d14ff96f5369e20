# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t_python: copy an interpreter with its exported Py_Version set to VERSION_HEX, an
interpreter of a version hotcold does not support (sys.version_info, a compile-time
constant, is unchanged): the negative control without a second Python installed.
usage: py_patch_version.py SRC DST VERSION_HEX"""
import subprocess, sys, shutil
src, dst, ver = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
syms = subprocess.run(["readelf", "-W", "--dyn-syms", src], capture_output=True, text=True).stdout
addr = next(int(l.split()[1], 16) for l in syms.splitlines() if l.split()[-1:] == ["Py_Version"])
secs = subprocess.run(["readelf", "-W", "-S", src], capture_output=True, text=True).stdout
for l in secs.splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 6 and f[0].startswith("[") and f[2] == "PROGBITS":
        a, o, sz = int(f[3], 16), int(f[4], 16), int(f[5], 16)
        if a <= addr < a + sz:
            shutil.copy(src, dst)
            with open(dst, "r+b") as out:
                out.seek(o + addr - a)
                out.write(ver.to_bytes(4, "little"))
            sys.exit(0)
sys.exit(1)
