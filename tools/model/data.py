"""Turns corpus.jsonl conversations into token ids and loss masks (chat template of docs/internals.md)."""

from __future__ import annotations

import json
import random

import torch

from tokenizer import ASSISTANT, END, ROLE_IDS, Tokenizer


def encode_conversation(tok: Tokenizer, messages: list[dict]) -> tuple[list[int], list[bool]]:
    """Ids of `<|role|> content <|end|>` per message, and which ids carry loss.

    Loss covers a training target's content and its <|end|> (so the model
    learns to stop), except the calculator's forced " result" tokens and the
    target's `untrainedPrefix` (a plain reply's opener: see conversations.ts).
    """
    ids: list[int] = []
    loss: list[bool] = []
    for m in messages:
        ids.append(ROLE_IDS[m["role"]])
        loss.append(False)
        if m["role"] == "assistant" and m.get("train"):
            content, forced = tok.encode_with_eq(m["content"])
            untrained = tok.encode(m.get("untrainedPrefix", ""))
            if content[: len(untrained)] != untrained:
                raise ValueError(
                    f"untrainedPrefix {m['untrainedPrefix']!r} does not tokenize as the start of its message"
                )
            ids.extend(content)
            loss.extend(i >= len(untrained) and not f for i, f in enumerate(forced))
            ids.append(END)
            loss.append(True)
        else:
            content = tok.encode(m["content"])
            ids.extend(content)
            loss.extend([False] * len(content))
            ids.append(END)
            loss.append(False)
    return ids, loss


def prompt_ids(tok: Tokenizer, messages: list[dict]) -> list[int]:
    """The generation prompt: every message, then <|assistant|>."""
    ids: list[int] = []
    for m in messages:
        ids.append(ROLE_IDS[m["role"]])
        ids.extend(tok.encode(m["content"]))
        ids.append(END)
    ids.append(ASSISTANT)
    return ids


def load_examples(tok: Tokenizer, path: str, max_len: int) -> list[tuple[list[int], list[bool]]]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            conv = json.loads(line)
            ids, loss = encode_conversation(tok, conv["messages"])
            if len(ids) <= max_len and any(loss):
                out.append((ids, loss))
    return out


def make_batches(examples, token_budget: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped by similar length so padding stays small; batch order shuffled."""
    order = sorted(range(len(examples)), key=lambda i: (len(examples[i][0]), rng.random()))
    batches, cur, cur_max = [], [], 0
    for i in order:
        n = len(examples[i][0])
        if cur and max(cur_max, n) * (len(cur) + 1) > token_budget:
            batches.append(cur)
            cur, cur_max = [], 0
        cur.append(i)
        cur_max = max(cur_max, n)
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches


def collate(examples, idx: list[int]):
    """Right-padded ids [B,S], attention mask, targets (-100 = no loss)."""
    s = max(len(examples[i][0]) for i in idx)
    ids = torch.zeros(len(idx), s, dtype=torch.long)
    am = torch.zeros(len(idx), s, dtype=torch.long)
    tgt = torch.full((len(idx), s), -100, dtype=torch.long)
    for r, i in enumerate(idx):
        x, loss = examples[i]
        n = len(x)
        row = torch.tensor(x)
        ids[r, :n] = row
        am[r, :n] = 1
        # position t predicts token t+1
        keep = torch.tensor(loss[1:], dtype=torch.bool)
        tgt[r, : n - 1] = torch.where(keep, row[1:], torch.full_like(row[1:], -100))
    return ids, am, tgt
