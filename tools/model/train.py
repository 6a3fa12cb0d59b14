"""Seeded pretraining of the embedded policy on the corpus (next-token loss on assistant targets)."""

from __future__ import annotations

import math
import random
import time

import torch
import torch.nn.functional as F

from data import collate, make_batches
from model import Config, Policy


def train(
    cfg: Config,
    examples,
    *,
    seed: int,
    steps: int,
    token_budget: int,
    lr: float,
    warmup: int,
    weight_decay: float,
    digit_ids: list[int] | None = None,
    digit_weight: float = 1.0,
    log_every: int = 50,
    log=print,
    checkpoint=None,
    checkpoint_every: int = 0,
    init: dict | None = None,
) -> tuple[Policy, dict]:
    """`init`: weights (HF names) to start from instead of the seeded random ones — a
    later build stage continuing an earlier one.
    `checkpoint(model, step)` is called every `checkpoint_every` steps, so a long build
    can be inspected (or cut short) without losing its progress.
    `digit_weight` scales the loss of digit targets (the operands the model copies
    from the problem: the hard, answer-deciding tokens) against the style text."""
    torch.manual_seed(seed)
    rng = random.Random(seed)
    model = Policy(cfg, seed)
    if init is not None:
        with torch.no_grad():
            for name, p in model.weights().items():
                p.copy_(init[name])
    decay = [p for n, p in zip(model.names, model.params) if not n.endswith("norm.weight")]
    no_decay = [p for n, p in zip(model.names, model.params) if n.endswith("norm.weight")]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=lr,
        betas=(0.9, 0.98),
        eps=1e-8,
    )

    def lr_at(step: int) -> float:
        if step < warmup:
            return lr * (step + 1) / warmup
        progress = (step - warmup) / max(1, steps - warmup)
        return lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))

    digit_lookup = torch.tensor(digit_ids or [], dtype=torch.long)
    batches: list[list[int]] = []
    t0 = time.time()
    ema = None
    tokens = 0
    history = []
    for step in range(steps):
        if not batches:
            batches = make_batches(examples, token_budget, rng)
        idx = batches.pop()
        ids, am, tgt = collate(examples, idx)
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        hidden = model.forward_train(ids, am)
        sel = tgt >= 0
        logits = F.linear(hidden[sel], model.params[0])  # only where there is loss (tied embedding)
        targets = tgt[sel]
        if digit_weight != 1.0 and digit_ids:
            w = 1.0 + (digit_weight - 1.0) * torch.isin(targets, digit_lookup).to(torch.float32)
            loss = (F.cross_entropy(logits, targets, reduction="none") * w).sum() / w.sum()
        else:
            loss = F.cross_entropy(logits, targets)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tokens += int(am.sum())
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        if (step + 1) % log_every == 0 or step == steps - 1:
            el = time.time() - t0
            log(
                f"step {step + 1}/{steps} loss {loss.item():.4f} ema {ema:.4f} lr {lr_at(step):.2e} "
                f"tok/s {tokens / el:.0f} elapsed {el / 60:.1f} min"
            )
            history.append({"step": step + 1, "loss": round(loss.item(), 5), "ema": round(ema, 5)})
        if checkpoint and checkpoint_every and (step + 1) % checkpoint_every == 0 and step + 1 < steps:
            checkpoint(model, step + 1)
    return model, {"final_loss": ema, "train_seconds": time.time() - t0, "tokens": tokens, "history": history}
