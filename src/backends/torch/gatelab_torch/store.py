"""Writing to the run's weight store (layout in trainerProtocol.ts, src/core/weights/weightStore.ts):

  blobs/<sha256>.safetensors               PEFT's adapter_model.safetensors bytes
  versions/<version>/adapter_config.json   PEFT's LoraConfig as save_pretrained writes it
  versions/<version>/manifest.json         written LAST: a version is complete iff it exists
  checkpoints/<version>/trainer_state.pt   torch.save of adapter (fp32), AdamW state, step, data range
  checkpoints/<version>/checkpoint.json    the files with sha256 and size, written last

Every file goes to a temporary name in its folder, is fsynced and renamed; the folder is
fsynced after the rename."""

from __future__ import annotations

import hashlib
import io
import json
import os
import secrets
from datetime import datetime, timezone
from pathlib import Path

import torch
from safetensors.torch import load as load_safetensors

CHECKPOINT_FORMAT = "gatelab-torch-trainer/1"
CHECKPOINT_STATE = "trainer_state.pt"
DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def version_id(step: int, sha256: str) -> str:
    return f"v{step}-{sha256[:8]}"


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.parent / f"{path.name}.{secrets.token_hex(6)}.tmp"
    with open(temp, "xb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)
    _fsync_dir(path.parent)


def js_number(x: float) -> str:
    """A number as JavaScript's String() writes it (32, not 32.0): the gate compares the metadata with the recipe."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def safetensors_bytes(tensors: dict[str, torch.Tensor], metadata: dict[str, str]) -> bytes:
    """A safetensors file with a canonical header (keys sorted, tensors by name): the blob is content-addressed,
    so the same adapter must give the same bytes — safetensors' own writer orders the metadata by hash."""
    names = {torch.float32: "F32", torch.bfloat16: "BF16", torch.float16: "F16"}
    header: dict = {"__metadata__": dict(sorted(metadata.items()))}
    chunks, offset = [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().to("cpu").contiguous()
        data = t.view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)


def adapter_bytes(tensors: dict[str, torch.Tensor], rank: int, alpha: float, dtype: str) -> bytes:
    """PEFT's adapter_model.safetensors: its tensor names, the chosen dtype, `format: pt` plus r and lora_alpha."""
    cast = {k: v.detach().to("cpu", DTYPES[dtype]) for k, v in tensors.items()}
    return safetensors_bytes(cast, {"format": "pt", "lora_alpha": js_number(alpha), "r": str(rank)})


def read_adapter(path: Path) -> dict[str, torch.Tensor]:
    return load_safetensors(path.read_bytes())


def adapter_config(rank: int, alpha: float, targets: list[str], base_model: str) -> dict:
    """What peft's LoraConfig.save_pretrained writes for a plain LoRA (the keys engines read)."""
    return {
        "peft_type": "LORA",
        "task_type": "CAUSAL_LM",
        "base_model_name_or_path": base_model,
        "revision": None,
        "r": rank,
        "lora_alpha": alpha,
        "target_modules": sorted(targets),
        "lora_dropout": 0.0,
        "bias": "none",
        "fan_in_fan_out": False,
        "use_rslora": False,
        "use_dora": False,
        "init_lora_weights": True,
        "modules_to_save": None,
        "layers_to_transform": None,
        "layers_pattern": None,
        "rank_pattern": {},
        "alpha_pattern": {},
        "inference_mode": True,
    }


class WeightStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def blob_path(self, sha256: str) -> Path:
        return self.root / "blobs" / f"{sha256}.safetensors"

    def version_dir(self, version: str) -> Path:
        return self.root / "versions" / version

    def checkpoint_dir(self, version: str) -> Path:
        return self.root / "checkpoints" / version

    def write_candidate(
        self,
        *,
        blob: bytes,
        step: int,
        kind: str,
        note: str | None,
        base_sha256: str,
        sessions: list[str],
        turns: int,
        loss: float | None,
        rank: int,
        alpha: float,
        targets: list[str],
        base_model: str,
    ) -> dict:
        sha = sha256_hex(blob)
        version = version_id(step, sha)
        blob_path = self.blob_path(sha)
        if not blob_path.exists():
            write_atomic(blob_path, blob)
        vdir = self.version_dir(version)
        write_atomic(
            vdir / "adapter_config.json",
            json.dumps(adapter_config(rank, alpha, targets, base_model), indent=2).encode(),
        )
        manifest = {
            "version": version,
            "kind": kind,
            **({"note": note} if note is not None else {}),
            "blobSha256": sha,
            "blobBytes": len(blob),
            "baseModelSha256": base_sha256,
            "step": step,
            "dataRange": {"sessions": sessions, "turns": turns},
            "loss": loss,
            "lora": {"rank": rank, "alpha": alpha, "targets": targets},
            "createdAt": now_iso(),
        }
        write_atomic(vdir / "manifest.json", json.dumps(manifest, indent=2).encode())
        return {"version": version, "sha256": sha, "path": str(blob_path), "manifestPath": str(vdir / "manifest.json")}

    def read_manifest(self, version: str) -> dict | None:
        path = self.version_dir(version) / "manifest.json"
        return json.loads(path.read_text()) if path.exists() else None

    def write_checkpoint(self, version: str, step: int, state: dict) -> Path:
        folder = self.checkpoint_dir(version)
        buf = io.BytesIO()
        torch.save(state, buf)
        data = buf.getvalue()
        write_atomic(folder / CHECKPOINT_STATE, data)
        manifest = {
            "version": version,
            "step": step,
            "format": CHECKPOINT_FORMAT,
            "files": {CHECKPOINT_STATE: {"sha256": sha256_hex(data), "bytes": len(data)}},
            "createdAt": now_iso(),
        }
        write_atomic(folder / "checkpoint.json", json.dumps(manifest, indent=2).encode())
        return folder

    def read_checkpoint(self, version: str) -> dict | None:
        """The checkpoint's state, its files checked against checkpoint.json; None when there is none."""
        folder = self.checkpoint_dir(version)
        manifest_path = folder / "checkpoint.json"
        if not manifest_path.exists():
            return None
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(
                f"checkpoint {version} is in format {manifest.get('format')!r}; this trainer reads {CHECKPOINT_FORMAT}"
            )
        for name, entry in manifest["files"].items():
            data = (folder / name).read_bytes()
            if sha256_hex(data) != entry["sha256"] or len(data) != entry["bytes"]:
                raise ValueError(f"checkpoint {version}: {name} does not match checkpoint.json")
        return torch.load(io.BytesIO((folder / CHECKPOINT_STATE).read_bytes()), weights_only=True, map_location="cpu")
