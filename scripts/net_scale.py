#!/usr/bin/env python3
"""Writes a copy of a Zwischen net file with another output scale.

The scale (header bytes 20..24, see src/eval/file.rs) is the number of centipawns per unit of
the net's float output: the trainer writes 400, the scale its targets were fitted at
(`sigmoid(score / 400)`). The engine multiplies by the file's scale, so a smaller one plays the
same net with its evaluations shrunk toward 0. The payload, and so the net's FNV-1a hash, is
unchanged; the engine names such a net by its hash and its scale.

    python3 scripts/net_scale.py net.nnue net-280.nnue 280
"""

import argparse
import struct

MAGIC = b"ZWNN"
# Header fields, little-endian u32 at these byte offsets (the table in src/eval/file.rs).
HIDDEN_AT = 12
SCALE_AT = 20  # SCALE_OFFSET in src/eval/file.rs


def header_field(path, at):
    """One u32 of a net file's header, e.g. `header_field(net, SCALE_AT)`."""
    with open(path, "rb") as file:
        return struct.unpack_from("<I", file.read(at + 4), at)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("scale", type=int, help="centipawns per unit of output (1 to 1600)")
    args = parser.parse_args()
    if not 1 <= args.scale <= 1600:
        parser.error("the engine takes scales from 1 to 1600")
    with open(args.input, "rb") as file:
        data = bytearray(file.read())
    if len(data) < 48 or data[:4] != MAGIC:
        parser.error(f"{args.input} is not a Zwischen net file")
    (old,) = struct.unpack_from("<I", data, SCALE_AT)
    struct.pack_into("<I", data, SCALE_AT, args.scale)
    with open(args.output, "wb") as file:
        file.write(data)
    print(f"{args.output}: output scale {old} -> {args.scale}")


if __name__ == "__main__":
    main()
