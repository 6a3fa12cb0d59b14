"""The Python half of scripts/gpu-check.sh (one NVIDIA GPU, torch + transformers + peft,
no network): the torch trainer's golden test, a few trainer steps on the GPU through the
trainer's own JSON-lines worker (the golden tiny Llama: a small configuration), and the
trainer's forward on SmolLM2-135M on the GPU when setup:python converted it. Prints one
JSON line per check; gpu-check.sh makes the table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TORCH_DIR = ROOT / "src" / "backends" / "torch"
sys.path[:0] = [str(TORCH_DIR), str(TORCH_DIR / "tests")]


def emit(**row) -> None:
    print(json.dumps(row), flush=True)


def golden_test() -> None:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", str(TORCH_DIR / "tests" / "test_golden.py")],
        cwd=TORCH_DIR,
        env={**os.environ, "PYTHONPATH": str(TORCH_DIR)},
        capture_output=True,
        text=True,
    )
    last = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    emit(
        check="trainer golden test (CPU, float32 vs float64 reference)",
        ok=proc.returncode == 0,
        seconds=time.perf_counter() - t0,
        detail=last,
    )


def gpu_memory_used_mib() -> int | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return int(out.stdout.strip().splitlines()[0])
    except Exception:
        return None


def trainer_steps(steps: int = 5) -> None:
    from conftest import tiny_init, tiny_model, tiny_samples

    golden = json.loads((ROOT / "tests" / "golden" / "trainer-golden.json").read_text())
    with tempfile.TemporaryDirectory() as work:
        tiny_dir = Path(work) / "tiny"
        tiny_model(golden).save_pretrained(tiny_dir)
        env = {**os.environ, "PYTHONPATH": str(TORCH_DIR), "CUDA_VISIBLE_DEVICES": "0"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "gatelab_torch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
        )

        def call(i: int, method: str, params: dict) -> dict:
            proc.stdin.write(json.dumps({"id": i, "method": method, "params": params}) + "\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
            if "result" not in answer:
                raise RuntimeError(f"{method}: {answer}")
            return answer["result"]

        try:
            assert json.loads(proc.stdout.readline())["ready"] is True
            call(1, "init", tiny_init(tiny_dir, Path(work) / "store"))
            times, tokens = [], 0
            for s in range(steps):
                t0 = time.perf_counter()
                out = call(2 + s, "step", {"samples": tiny_samples(golden), "lr": 0.01})
                times.append(time.perf_counter() - t0)
                tokens += int(out["report"]["tokens"])
            memory = gpu_memory_used_mib()
            call(99, "__shutdown", {})
        finally:
            proc.kill()
        # The first step includes CUDA's warm-up: the median of the rest is the step time.
        rest = sorted(times[1:]) or times
        emit(
            check=f"torch trainer: {steps} steps on the GPU (golden tiny Llama, rank 4)",
            ok=True,
            seconds=sum(times),
            stepSeconds=rest[len(rest) // 2],
            tokensPerSecond=tokens / sum(times),
            gpuMemoryMiB=memory,
        )


def smollm2_forward() -> None:
    import torch

    from gatelab_torch.policy import LoraSettings, Policy, Sequence_

    home = Path(os.environ.get("GATELAB_HOME") or Path.home() / ".cache" / "gatelab")
    model_dir = home / "models" / "smollm2-135m-instruct"
    if not (model_dir / "config.json").exists():
        emit(
            check="trainer forward + backward on SmolLM2-135M (GPU)",
            ok=None,
            detail=f"skipped: {model_dir} missing (npm run setup:python)",
        )
        return
    lora = LoraSettings(
        rank=16,
        alpha=32,
        targets=("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
        dtype="F32",
    )
    policy = Policy(str(model_dir), lora, device=torch.device("cuda"), dtype=torch.float32)
    policy.fresh_adapter(1)
    rows = [Sequence_(prompt_ids=list(range(100, 356)), response_ids=list(range(400, 656))) for _ in range(8)]
    torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(4):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        logp = policy.response_logprobs(rows, 1.0, adapter=True)
        sum(lp.logsumexp(-1).sum() for lp in logp).backward()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    rest = sorted(times[1:])
    step = rest[len(rest) // 2]
    emit(
        check="trainer forward + backward, SmolLM2-135M fp32, 8 x 512 tokens (GPU)",
        ok=True,
        stepSeconds=step,
        tokensPerSecond=8 * 512 / step,
        gpuMemoryMiB=torch.cuda.max_memory_allocated() // (1024 * 1024),
    )


if __name__ == "__main__":
    for check in (golden_test, trainer_steps, smollm2_forward):
        try:
            check()
        except Exception as error:  # every check reports, none stops the others
            emit(check=check.__name__, ok=False, detail=f"{type(error).__name__}: {error}"[:300])
