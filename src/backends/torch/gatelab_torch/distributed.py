"""Data parallelism under torchrun: every rank holds the same adapter and optimizer, takes
its share of the batch's samples, and the gradients (and the loss sums) are summed over
ranks before one identical AdamW step on every rank. The loss is normalised by the
whole batch's valid tokens on every rank, so the summed gradient is the gradient a
single process computes. Rank 0 talks the protocol and writes the store; it broadcasts
each request to the others. gloo on CPU, NCCL on GPUs."""

from __future__ import annotations

import os

import torch
import torch.distributed as dist


class Group:
    def __init__(self) -> None:
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.device = torch.device("cpu")
        if torch.cuda.is_available():
            self.device = torch.device("cuda", self.local_rank % torch.cuda.device_count())
            torch.cuda.set_device(self.device)
        if self.world > 1:
            dist.init_process_group(backend="nccl" if self.device.type == "cuda" else "gloo")

    @property
    def leader(self) -> bool:
        return self.rank == 0

    def broadcast(self, obj):
        """Rank 0's object on every rank."""
        if self.world == 1:
            return obj
        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def sum_(self, tensors: list[torch.Tensor]) -> None:
        """In-place sum over ranks, one flat all-reduce."""
        if self.world == 1 or not tensors:
            return
        flat = torch.cat([t.reshape(-1) for t in tensors])
        dist.all_reduce(flat, op=dist.ReduceOp.SUM)
        offset = 0
        for t in tensors:
            n = t.numel()
            t.copy_(flat[offset : offset + n].view_as(t))
            offset += n

    def close(self) -> None:
        if self.world > 1 and dist.is_initialized():
            dist.destroy_process_group()
