"""The independent reference: the policy forward and the trainer objective in plain torch,
differentiated by autograd. It shares no code with `lora_grad.py` on purpose — it is
the yardstick the hand-written backward (grad.onnx) and the TypeScript objective are
measured against, and later the GPU trainer too (tests/golden/trainer-golden.json).

Objective (docs/design.md, "The objective"; docs/internals.md, "The embedded trainer"):
  per valid response token t of sample s (not forced; prompt tokens never count),
  with log-probs taken from softmax(logits / temperature):
    PG_t  = -min(rho A, clip(rho, 1-eps_low, 1+eps_high) A),
            rho = exp(clamp(logp(y_t) - old_t, +-20)), A = reward_s
    OPD_t = sum_v over the K old top ids of -min(rho_v A_v, clip(rho_v) A_v),
            rho_v = exp(clamp(logp(v) - old_v, +-20)),
            A_v = clamp(teacher_v - old_v, +-1) * softmax_K(old)_v      (only samples with a teacher)
    KL_t  = sum_v pi_t(v) (logp_t(v) - base_t(v))    (KL(pi || base) exactly, over the vocabulary)
  loss = (w_rl sum PG + w_opd sum OPD + kl_coef sum KL) / number of valid tokens in the batch.
"""

from __future__ import annotations

import math

import torch


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rope(x, pos, theta):
    dh = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    ang = pos.to(torch.float64)[:, None] * inv[None, :]  # [T, Dh/2]
    cos = torch.cat([ang.cos(), ang.cos()], -1).to(x.dtype)
    sin = torch.cat([ang.sin(), ang.sin()], -1).to(x.dtype)
    x1, x2 = x[..., : dh // 2], x[..., dh // 2 :]
    return x * cos + torch.cat([-x2, x1], -1) * sin


def forward_logits(config, base, lora, scale, ids, positions=None):
    """Logits [T, V] of one unpadded sequence. `lora` maps "i.m" -> (A, B) or is None (LoRA off)."""
    d = config["hidden_size"]
    heads = config["num_attention_heads"]
    dh = d // heads
    eps = config["rms_norm_eps"]
    theta = config["rope_theta"]
    T = ids.shape[0]
    pos = torch.arange(T) if positions is None else positions

    def proj(i, group, m, x):
        y = x @ base[f"model.layers.{i}.{group}.{m}_proj.weight"].T
        if lora is not None and f"{i}.{m}" in lora:
            a, b = lora[f"{i}.{m}"]
            y = y + scale * ((x @ a.T) @ b.T)
        return y

    h = base["model.embed_tokens.weight"][ids]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for i in range(config["num_hidden_layers"]):
        x = rms_norm(h, base[f"model.layers.{i}.input_layernorm.weight"], eps)
        q = proj(i, "self_attn", "q", x).view(T, heads, dh).transpose(0, 1)
        k = proj(i, "self_attn", "k", x).view(T, heads, dh).transpose(0, 1)
        v = proj(i, "self_attn", "v", x).view(T, heads, dh).transpose(0, 1)
        q, k = rope(q, pos, theta), rope(k, pos, theta)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(dh)
        att = att.masked_fill(~causal, float("-inf")).softmax(-1)
        ctx = (att @ v).transpose(0, 1).reshape(T, d)
        h = h + proj(i, "self_attn", "o", ctx)
        x = rms_norm(h, base[f"model.layers.{i}.post_attention_layernorm.weight"], eps)
        mlp = torch.nn.functional.silu(proj(i, "mlp", "gate", x)) * proj(i, "mlp", "up", x)
        h = h + proj(i, "mlp", "down", mlp)
    h = rms_norm(h, base["model.norm.weight"], eps)
    return h @ base["model.embed_tokens.weight"].T


def response_logprobs(config, base, lora, scale, prompt, response, temperature):
    """[n, V] log-probs at the positions that predict each response token."""
    ids = torch.tensor(list(prompt) + list(response), dtype=torch.int64)
    logits = forward_logits(config, base, lora, scale, ids)
    start = len(prompt) - 1
    return torch.log_softmax(logits[start : start + len(response)] / temperature, dim=-1)


def clipped_surrogate(logp, old, adv, eps_low, eps_high):
    ratio = torch.exp(torch.clamp(logp - old, -20.0, 20.0))
    return -torch.minimum(ratio * adv, torch.clamp(ratio, 1.0 - eps_low, 1.0 + eps_high) * adv)


def objective(config, base, lora, scale, samples, cfg):
    """Returns (loss, parts) for a batch; differentiable w.r.t. the LoRA tensors."""
    pg_sum = torch.zeros((), dtype=torch.float64)
    opd_sum = torch.zeros((), dtype=torch.float64)
    kl_sum = torch.zeros((), dtype=torch.float64)
    tokens = 0
    for s in samples:
        lp = response_logprobs(config, base, lora, scale, s["promptIds"], s["responseIds"], cfg["temperature"])
        valid = torch.tensor([not f for f in s["forced"]], dtype=torch.bool)
        tokens += int(valid.sum())
        y = torch.tensor(s["responseIds"], dtype=torch.int64)
        lp_y = lp.gather(1, y[:, None])[:, 0]
        old = torch.tensor(s["logprobs"], dtype=lp.dtype)
        pg = clipped_surrogate(lp_y, old, float(s["reward"]), cfg["clipLow"], cfg["clipHigh"])
        pg_sum = pg_sum + pg[valid].sum()
        if s.get("teacherTopLogprobs") is not None:
            top = torch.tensor(s["topIds"], dtype=torch.int64)
            old_top = torch.tensor(s["topLogprobs"], dtype=lp.dtype)
            teacher = torch.tensor(s["teacherTopLogprobs"], dtype=lp.dtype)
            weight = torch.softmax(old_top, dim=-1)
            adv = torch.clamp(teacher - old_top, -cfg["opdAdvantageClamp"], cfg["opdAdvantageClamp"]) * weight
            opd = clipped_surrogate(lp.gather(1, top), old_top, adv, cfg["clipLow"], cfg["clipHigh"]).sum(-1)
            opd_sum = opd_sum + opd[valid].sum()
        if cfg["klCoef"] > 0:
            ref = torch.tensor(s["baseLogprobs"], dtype=lp.dtype)  # [n, V]
            kl = (lp.exp() * (lp - ref)).sum(-1)
            kl_sum = kl_sum + kl[valid].sum()
    loss = (cfg["wRl"] * pg_sum + cfg["wOpd"] * opd_sum + cfg["klCoef"] * kl_sum) / tokens
    return loss, {"pg": pg_sum / tokens, "opd": opd_sum / tokens, "kl": kl_sum / tokens, "tokens": tokens}
