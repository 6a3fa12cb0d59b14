"""Train samples (src/core/protocols/trainSample.ts), validated at the boundary so a
bad sample is refused with a message naming the sample and the field before anything
is computed. The checks mirror trainSampleSchema and addResponseIssues."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import bad_input

SAMPLE_KEYS = {
    "sessionId",
    "turn",
    "messages",
    "hint",
    "promptIds",
    "responseIds",
    "logprobs",
    "topIds",
    "topLogprobs",
    "forced",
    "reward",
    "teacherTopLogprobs",
}
CHAT_ROLES = {"system", "user", "assistant"}
# A log-prob is <= 0; the allowance absorbs float32 rounding in the engine (trainSample.ts).
LOGPROB_MAX = 1e-3


@dataclass(frozen=True)
class TrainSample:
    session_id: str
    turn: int
    messages: list[dict[str, str]]
    hint: str | None
    prompt_ids: list[int] | None
    response_ids: list[int]
    logprobs: list[float]
    top_ids: list[list[int]]
    top_logprobs: list[list[float]]
    forced: list[bool]
    reward: float
    teacher_top_logprobs: list[list[float]] | None

    @property
    def valid_tokens(self) -> int:
        return sum(1 for f in self.forced if not f)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return (isinstance(x, (int, float)) and not isinstance(x, bool)) and math.isfinite(x)


def _describe(raw: Any, index: int) -> str:
    if isinstance(raw, dict) and isinstance(raw.get("sessionId"), str):
        return f"sample {index} (session {raw['sessionId']}, turn {raw.get('turn')})"
    return f"sample {index}"


def _sample_problems(s: Any, vocab_size: int | None) -> list[str]:
    """Every problem of one raw sample, each as '<field> <message>'."""
    if not isinstance(s, dict):
        return ["(sample) must be an object"]
    problems: list[str] = []
    for key in s:
        if key not in SAMPLE_KEYS:
            problems.append(f"{key} is not a train sample field")
    if not isinstance(s.get("sessionId"), str) or not s.get("sessionId"):
        problems.append("sessionId must be a non-empty string")
    if not _is_int(s.get("turn")) or s["turn"] < 0:
        problems.append("turn must be an integer >= 0")
    messages = s.get("messages")
    if not isinstance(messages, list) or not messages:
        problems.append("messages must be a non-empty list of chat messages")
    else:
        for i, m in enumerate(messages):
            if (
                not isinstance(m, dict)
                or m.get("role") not in CHAT_ROLES
                or not isinstance(m.get("content"), str)
                or set(m) - {"role", "content"}
            ):
                problems.append(f"messages.{i} must be {{role: system|user|assistant, content: string}}")
        if isinstance(messages[-1], dict) and messages[-1].get("role") != "user":
            problems.append("messages must end with the user message the reply answers")
    if "hint" in s and (not isinstance(s["hint"], str) or not s["hint"]):
        problems.append("hint must be a non-empty string when present")

    def ids(field: str, value: Any, min_len: int = 1) -> bool:
        if not isinstance(value, list) or len(value) < min_len or not all(_is_int(v) and v >= 0 for v in value):
            problems.append(f"{field} must be a non-empty list of token ids (integers >= 0)")
            return False
        if vocab_size is not None and any(v >= vocab_size for v in value):
            problems.append(f"{field} has a token id >= the model's vocabulary size {vocab_size}")
            return False
        return True

    def logprobs(field: str, value: Any) -> bool:
        if not isinstance(value, list) or not all(_is_number(v) for v in value):
            problems.append(f"{field} must be finite numbers (a NaN or infinite log-prob poisons the gradient)")
            return False
        if any(v > LOGPROB_MAX for v in value):
            problems.append(f"{field} has a positive log-prob")
            return False
        return True

    def rows(field: str, value: Any, what: str, check) -> bool:
        """A list with one non-empty list per response position, each passing `check`."""
        if not isinstance(value, list) or not all(isinstance(row, list) and row for row in value):
            problems.append(f"{field} must be a list of non-empty lists of {what}")
            return False
        return all(check(f"{field}.{t}", row) for t, row in enumerate(value))

    if "promptIds" in s:
        ids("promptIds", s["promptIds"])
    response = s.get("responseIds")
    if not isinstance(response, list) or not response:
        problems.append("responseIds the response is empty: there is nothing to train on")
        response_ok = False
    else:
        response_ok = ids("responseIds", response)
    lp_ok = logprobs("logprobs", s.get("logprobs"))
    top = s.get("topIds")
    top_ok = rows("topIds", top, "token ids", ids)
    top_lp = s.get("topLogprobs")
    top_lp_ok = rows("topLogprobs", top_lp, "log-probs", logprobs)
    forced = s.get("forced")
    if forced is not None and (not isinstance(forced, list) or not all(isinstance(f, bool) for f in forced)):
        problems.append("forced must be a list of booleans")
        forced = None
    teacher = s.get("teacherTopLogprobs")
    teacher_ok = teacher is None or rows("teacherTopLogprobs", teacher, "log-probs", logprobs)
    reward = s.get("reward")
    if not _is_number(reward) or not -1 <= reward <= 1:
        problems.append("reward must be a finite number in [-1, 1]")

    # The checks across fields (addResponseIssues).
    if response_ok:
        n = len(response)
        for field, value, ok in (
            ("forced", forced, forced is not None),
            ("logprobs", s.get("logprobs"), lp_ok),
            ("topIds", top, top_ok),
            ("topLogprobs", top_lp, top_lp_ok),
            ("teacherTopLogprobs", teacher, teacher is not None and teacher_ok),
        ):
            if ok and len(value) != n:
                problems.append(f"{field} has {len(value)} entries but responseIds has {n}")
        if top_ok:
            k = len(top[0])
            for t in range(min(n, len(top))):
                if len(top[t]) != k:
                    problems.append(f"topIds.{t} has {len(top[t])} ids; position 0 has K = {k}")
                    break
                if top_lp_ok and t < len(top_lp) and len(top_lp[t]) != k:
                    problems.append(f"topLogprobs.{t} has {len(top_lp[t])} log-probs, K is {k}")
                    break
                if teacher is not None and teacher_ok and t < len(teacher) and len(teacher[t]) != k:
                    problems.append(f"teacherTopLogprobs.{t} has {len(teacher[t])} log-probs, K is {k}")
                    break
        if forced is not None and len(forced) == n and all(forced):
            problems.append("forced every response token is forced: nothing is left to train on")
    has_hint = isinstance(s.get("hint"), str)
    if has_hint and teacher is not None:
        problems.append("teacherTopLogprobs give the teacher either as a hint or as teacherTopLogprobs, not both")
    if reward == 0 and not has_hint and teacher is None:
        problems.append(
            "reward 0 and no teacher: the turn carries no training signal"
            " (docs/design.md, How a judged turn trains: it does not train)"
        )
    return problems


def parse_train_batch(raw: Any, vocab_size: int | None = None) -> list[TrainSample]:
    """Parses a batch or raises bad_input naming every bad sample and field (the first eight)."""
    if not isinstance(raw, list) or not raw:
        raise bad_input("a training batch must be a non-empty array of samples")
    problems: list[str] = []
    out: list[TrainSample] = []
    for index, s in enumerate(raw):
        found = _sample_problems(s, vocab_size)
        if found:
            problems.extend(f"{_describe(s, index)}: {p}" for p in found)
            continue
        n = len(s["responseIds"])
        out.append(
            TrainSample(
                session_id=s["sessionId"],
                turn=s["turn"],
                messages=s["messages"],
                hint=s.get("hint"),
                prompt_ids=s.get("promptIds"),
                response_ids=list(s["responseIds"]),
                logprobs=[float(v) for v in s["logprobs"]],
                top_ids=[list(r) for r in s["topIds"]],
                top_logprobs=[[float(v) for v in r] for r in s["topLogprobs"]],
                forced=list(s.get("forced") or [False] * n),
                reward=float(s["reward"]),
                teacher_top_logprobs=None
                if s.get("teacherTopLogprobs") is None
                else [[float(v) for v in r] for r in s["teacherTopLogprobs"]],
            )
        )
    if problems:
        shown = "\n  ".join(problems[:8])
        more = f"\n  … and {len(problems) - 8} more" if len(problems) > 8 else ""
        raise bad_input(f"the training batch was refused, no candidate produced:\n  {shown}{more}")
    return out
