"""Minimal safetensors reader/writer for float32 tensors (the format is an 8-byte
little-endian header length, a JSON header of dtype/shape/offsets, then the raw data).
Written by hand because the `safetensors` package is not part of the Debian toolchain."""

from __future__ import annotations

import json
import struct

import numpy as np
import torch


def write_safetensors(path: str, tensors: dict, metadata: dict | None = None) -> None:
    header: dict = {}
    offset = 0
    blobs = []
    for name, t in tensors.items():
        arr = np.ascontiguousarray(t.detach().cpu().numpy().astype("<f4"))
        data = arr.tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def read_safetensors(path: str) -> dict:
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: {name} is {info['dtype']}, expected F32")
        s, e = info["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(raw[base + s : base + e], dtype="<f4").copy()).reshape(info["shape"])
    return out
