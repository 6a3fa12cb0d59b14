"""The JSON-lines transport of a `process` worker (src/processes/workerMessages.ts):
first line `{"ready": true, "pid": N}`, then one answer line per request line, in order.
stdout carries protocol lines only: everything else a library prints to fd 1 is sent
to stderr (the log). Under torchrun rank 0 reads the requests and broadcasts each one,
so every rank runs the same calls in the same order; only rank 0 answers."""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any, Callable, TextIO

from .distributed import Group
from .errors import TrainerError
from .trainer import TorchTrainer

SHUTDOWN = "__shutdown"


def protocol_stdout() -> TextIO:
    """A private handle on the real stdout; fd 1 itself becomes stderr."""
    out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def _check(params: Any, required: list[str]) -> dict:
    if not isinstance(params, dict):
        raise TrainerError("bad_request", "params must be an object")
    missing = [k for k in required if k not in params]
    if missing:
        raise TrainerError("bad_request", f"params lack {', '.join(missing)}")
    return params


def methods(trainer: TorchTrainer) -> dict[str, Callable[[Any], dict]]:
    return {
        "init": lambda p: trainer.init(_check(p, ["modelDir", "baseSha256", "storeDir", "lora", "optimizer", "seed"])),
        "restore": lambda p: trainer.restore(_check(p, ["version"])),
        "step": lambda p: trainer.step(_check(p, ["samples", "lr"])),
        "badCandidate": lambda p: trainer.bad_candidate(_check(p, ["kind", "seed", "note"])),
    }


def handle(table: dict[str, Callable[[Any], dict]], request: dict) -> dict:
    rid = request.get("id")
    method = request.get("method")
    try:
        if method not in table:
            raise TrainerError("unknown_method", f"unknown method {method!r}")
        return {"id": rid, "result": table[method](request.get("params"))}
    except TrainerError as error:
        return {"id": rid, "error": {"code": error.code, "message": error.message}}
    except (KeyError, TypeError, ValueError) as error:
        traceback.print_exc(file=sys.stderr)
        return {"id": rid, "error": {"code": "bad_request", "message": f"{method}: {type(error).__name__}: {error}"}}


def serve(group: Group, trainer: TorchTrainer) -> None:
    table = methods(trainer)
    out = protocol_stdout() if group.leader else None

    def send(message: dict) -> None:
        out.write(json.dumps(message, allow_nan=False) + "\n")
        out.flush()

    if group.leader:
        send({"ready": True, "pid": os.getpid()})
    while True:
        request: dict | None = None
        if group.leader:
            line = sys.stdin.readline()
            if line == "":
                request = None  # end of stdin: the lab is gone
            elif line.strip() == "":
                continue
            else:
                try:
                    request = json.loads(line)
                    if not isinstance(request, dict) or not isinstance(request.get("id"), int):
                        raise ValueError("a request is {id, method, params}")
                except ValueError as error:
                    print(f"gatelab_torch: unreadable request line dropped: {error}", file=sys.stderr)
                    continue
        request = group.broadcast(request)
        if request is None:
            return
        if request.get("method") == SHUTDOWN:
            if group.leader:
                send({"id": request["id"], "result": {"ok": True}})
            return
        answer = handle(table, request)
        if group.leader:
            try:
                send(answer)
            except ValueError:  # a NaN in a result: never send invalid JSON
                send(
                    {
                        "id": request["id"],
                        "error": {"code": "step_refused", "message": "the result holds a non-finite number"},
                    }
                )
