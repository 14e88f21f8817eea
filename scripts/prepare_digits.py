#!/usr/bin/env python3
"""Writes scikit-learn's handwritten digits (UCI's optical digits, 1,797 8x8 images in ten classes, shipped
inside the scikit-learn package: nothing is downloaded) as MNIST-format IDX files that ampbench reads with
"data": {"mnist": {"dir": DIR}}.

Usage: scripts/prepare_digits.py [DIR]   (default: data/digits)

Every fifth image goes to the validation split (360 images, every class), the rest to training (1,437).
Pixel values 0-16 are scaled to 0-255, as MNIST's bytes are.
"""
import os
import struct
import sys

import numpy as np
from sklearn.datasets import load_digits


def write_idx(path, array):
    """IDX of unsigned bytes: magic 0x08 then the rank, each dimension big-endian, then the bytes."""
    header = struct.pack(">I", 0x0800 + array.ndim) + b"".join(struct.pack(">I", d) for d in array.shape)
    with open(path + ".tmp", "wb") as out:
        out.write(header + array.astype(np.uint8).tobytes())
    os.replace(path + ".tmp", path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "data/digits"
    os.makedirs(out, exist_ok=True)
    digits = load_digits()
    images = np.minimum(digits.images * 16, 255).astype(np.uint8)
    labels = digits.target.astype(np.uint8)
    val = np.arange(len(labels)) % 5 == 0
    for prefix, keep in (("train", ~val), ("t10k", val)):
        write_idx(os.path.join(out, prefix + "-images-idx3-ubyte"), images[keep])
        write_idx(os.path.join(out, prefix + "-labels-idx1-ubyte"), labels[keep])
    print(f"prepare_digits: {int((~val).sum())} training and {int(val.sum())} validation images in {out}")


if __name__ == "__main__":
    main()
