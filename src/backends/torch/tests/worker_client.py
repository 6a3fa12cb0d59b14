"""A test client of the trainer protocol over JSON lines: starts `python -m gatelab_torch`
(or torchrun around it) with an argument array, as the lab's supervisor does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1]


class WorkerClient:
    def __init__(self, nproc: int = 1, extra_args: list[str] | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT), "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
        module = ["-m", "gatelab_torch", *(extra_args or [])]
        if nproc == 1:
            args = [sys.executable, *module]
        else:
            args = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}", *module]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        ready = json.loads(self.proc.stdout.readline())
        assert ready["ready"] is True and isinstance(ready["pid"], int), ready
        self.next_id = 0

    def call(self, method: str, params: dict) -> dict:
        """The whole answer line: {"id", "result"} or {"id", "error"}."""
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"id": self.next_id, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        assert answer["id"] == self.next_id
        return answer

    def result(self, method: str, params: dict) -> dict:
        answer = self.call(method, params)
        assert "result" in answer, answer
        return answer["result"]

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.result("__shutdown", {}) == {"ok": True}
            self.proc.stdin.close()
            self.proc.wait(timeout=120)
