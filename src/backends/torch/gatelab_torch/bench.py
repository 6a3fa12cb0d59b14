"""One rank of `npm run bench:torch-trainer` (bench/torchTrainer.ts runs it alone and under
torchrun): the time of a real trainer step on SmolLM2-135M-Instruct — policy forward and
backward, the hinted-teacher and KL-base forwards, the all-reduce, AdamW — its FLOPs
(counted by torch.utils.flop_counter on one step), and the matmul peak of these same
threads measured in the same run (every rank at once, as during the step). Rank 0 writes
one JSON object to the path given. With 0 steps it measures memory only: one step and no
warm-up or flop counter in the process, so its peak resident memory is the step's."""

from __future__ import annotations

import json
import resource
import sys
import time

import torch
from torch.utils.flop_counter import FlopCounterMode

from .distributed import Group
from .trainer import TorchTrainer

PASSAGE = (
    "Tom has 12 apples. He gives 5 to Anna, so 12 - 5 = 7 apples are left. Then he buys 3 bags of 4 apples, "
    "which is 3 * 4 = 12 more, and 7 + 12 = 19. So Tom has 19 apples in the end. "
)


def matmul_peak(device: torch.device, n: int = 1024, seconds: float = 2.0) -> float:
    """FLOP/s of an n×n fp32 matmul on this process's threads (the best of repeated timings)."""
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    for _ in range(3):
        a @ b
    best, deadline = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        t0 = time.perf_counter()
        for _ in range(4):
            a @ b
        if device.type == "cuda":
            torch.cuda.synchronize()
        best = max(best, 4 * 2 * n**3 / (time.perf_counter() - t0))
    return best


def samples(tok, count: int, response_tokens: int) -> list[dict]:
    text_ids = tok(PASSAGE * 8)["input_ids"]
    out = []
    for i in range(count):
        ids = text_ids[i : i + response_tokens - 1] + [tok.eos_token_id]
        s = {
            "sessionId": f"bench/session-{i}",
            "turn": 0,
            "messages": [
                {
                    "role": "user",
                    "content": f"Homework {i}: Tom has 12 apples and gives 5 away, then buys 3 bags of 4. How many?",
                }
            ],
            "responseIds": ids,
            "logprobs": [-1.0] * len(ids),
            "topIds": [[t, 11, 12, 13] for t in ids],
            "topLogprobs": [[-1.0, -2.0, -3.0, -4.0]] * len(ids),
            "reward": 1.0 if i % 2 == 0 else -1.0,
        }
        if i % 2 == 1:
            s["hint"] = "Keep every step but write it plainly, no bold."
        out.append(s)
    return out


def main() -> None:
    model_dir, out_path, n_samples, response_tokens, steps = (
        sys.argv[1],
        sys.argv[2],
        int(sys.argv[3]),
        int(sys.argv[4]),
        int(sys.argv[5]),
    )
    checkpointing = "--gradient-checkpointing" in sys.argv[6:]
    group = Group()
    trainer = TorchTrainer(group, dtype="auto", gradient_checkpointing=checkpointing)
    import tempfile

    store = tempfile.mkdtemp(prefix="gatelab-bench-")
    trainer.init(
        {
            "modelDir": model_dir,
            "baseSha256": "0" * 64,
            "storeDir": store,
            "lora": {
                "rank": 16,
                "alpha": 32,
                "targets": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
            },
            "objective": {"klCoef": 0.1},
            "optimizer": {"lr": 1e-5},
            "seed": 1,
            "maxTokensPerCall": 4096,
        }
    )
    t = trainer.trainer
    batch = samples(t.policy.tokenizer, n_samples, response_tokens)
    if steps > 0:
        t.step(batch, 1e-5)  # warm-up
        with FlopCounterMode(display=False) as counter:
            t.step(batch, 1e-5)
        flops_rank = torch.tensor([float(counter.get_total_flops())], dtype=torch.float64, device=group.device)
        group.sum_([flops_rank])
    else:  # memory only: one step, nothing else in the process's peak (no warm-up, no flop counter)
        flops_rank = None
        steps = 1
    times = []
    for _ in range(steps):
        if group.world > 1:
            torch.distributed.barrier()
        t0 = time.perf_counter()
        report = t.step(batch, 1e-5)
        times.append(time.perf_counter() - t0)
    peak = torch.tensor([matmul_peak(group.device)], dtype=torch.float64, device=group.device)
    group.sum_([peak])  # every rank measured at once: the machine's peak as the step uses it
    rss = torch.tensor(
        [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0], dtype=torch.float64, device=group.device
    )
    all_rss = [torch.zeros_like(rss) for _ in range(group.world)]
    if group.world > 1:
        torch.distributed.all_gather(all_rss, rss)
    else:
        all_rss = [rss]
    gpu_mem = torch.cuda.max_memory_allocated() / 2**20 if group.device.type == "cuda" else None
    if group.leader:
        step_s = sorted(times)[len(times) // 2]
        tokens = sum(len(s["responseIds"]) for s in batch)
        padded = sum(len(t.policy.chat_ids(s["messages"])) + len(s["responseIds"]) for s in batch)
        result = {
            "processes": group.world,
            "threadsPerProcess": torch.get_num_threads(),
            "device": str(group.device),
            "gradientCheckpointing": checkpointing,
            "samples": len(batch),
            "trainedTokensPerStep": tokens,
            "sequenceTokensPerStep": padded,
            "stepSeconds": step_s,
            "stepSecondsAll": times,
            "tokensPerSecond": tokens / step_s,
            "sequenceTokensPerSecond": padded / step_s,
            "flopsPerStep": None if flops_rank is None else float(flops_rank),
            "achievedFlops": None if flops_rank is None else float(flops_rank) / step_s,
            "matmulPeakFlops": float(peak),
            "fractionOfPeak": None if flops_rank is None else float(flops_rank) / step_s / float(peak),
            "peakRssMiBPerProcess": [float(r) for r in all_rss],
            "gpuMaxAllocatedMiB": gpu_mem,
            "loss": report["loss"],
        }
        with open(out_path, "w") as f:
            json.dump(result, f, indent=2)
    group.close()


if __name__ == "__main__":
    main()
