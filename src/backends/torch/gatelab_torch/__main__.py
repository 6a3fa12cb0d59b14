"""`python -m gatelab_torch [--dtype auto|fp32|bf16] [--gradient-checkpointing]`: the torch
trainer as a `process` worker of the trainer protocol (JSON lines on stdin/stdout).
Under `python -m torch.distributed.run --nproc-per-node N -m gatelab_torch` each rank
runs this; rank 0 talks the protocol."""

from __future__ import annotations

import argparse

from .distributed import Group
from .server import serve
from .trainer import TorchTrainer


def main() -> None:
    parser = argparse.ArgumentParser(prog="gatelab_torch")
    parser.add_argument(
        "--dtype",
        choices=["auto", "fp32", "bf16"],
        default="auto",
        help="the base weights' dtype: auto = bf16 on a GPU that has it, fp32 on the CPU (LoRA and AdamW stay fp32)",
    )
    parser.add_argument(
        "--gradient-checkpointing",
        action="store_true",
        help="recompute activations in backward (less memory, more time)",
    )
    args = parser.parse_args()
    group = Group()
    try:
        serve(group, TorchTrainer(group, dtype=args.dtype, gradient_checkpointing=args.gradient_checkpointing))
    finally:
        group.close()


if __name__ == "__main__":
    main()
