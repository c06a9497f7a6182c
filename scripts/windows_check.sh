#!/bin/sh
# Cross-builds Zwischen for Windows (x86_64-pc-windows-gnu) on Linux and runs its bench under
# Wine; the node count must equal a native build's. Needs rustup's std for that target and
# the MinGW and Wine packages:
#
#   rustup target add x86_64-pc-windows-gnu
#   apt-get install gcc-mingw-w64-x86-64 wine
#   scripts/windows_check.sh [OUT_DIR]        # default: target/windows-check
#
# Wine 8.0 lacks bcryptprimitives.dll, whose ProcessPrng Rust's standard library uses since
# 1.78; a shim built from scripts/windows/bcryptprimitives_shim.c goes next to the .exe
# (Windows itself has the real one: the shim is for Wine only, never shipped).
set -eu
out=${1:-target/windows-check}
target=x86_64-pc-windows-gnu
mkdir -p "$out"
out=$(cd "$out" && pwd)    # absolute: Wine's prefix is built from it
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
    cargo build --release --target "$target"
cp "target/$target/release/zwischen.exe" "$out/"
x86_64-w64-mingw32-gcc -shared -O2 -o "$out/bcryptprimitives.dll" \
    scripts/windows/bcryptprimitives_shim.c -ladvapi32
cargo build --release
expected=$(target/release/zwischen bench 2>/dev/null | tail -1 | cut -d' ' -f1)
export WINEDEBUG=-all WINEPREFIX="${WINEPREFIX:-$out/wineprefix}"
got=$(wine "$out/zwischen.exe" bench 2>/dev/null | tail -1 | cut -d' ' -f1)
echo "bench under Wine: $got nodes (native build: $expected)"
test "$got" = "$expected"
