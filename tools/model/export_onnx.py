"""Exports decode.onnx (docs/internals.md, "decode.onnx"): weights and LoRA are graph inputs,
KV cache in and out, dynamic batch / sequence / past / LoRA rank. Opset 17."""

from __future__ import annotations

import torch
from torch import nn

from model import LORA_MODULES, Config, base_names, forward, lora_names, module_shape


class DecodeGraph(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg
        self.base = base_names(cfg)
        self.lora = lora_names(cfg)

    def forward(self, input_ids, position_ids, attention_mask, past_key, past_value, *tensors):
        nb, nl = len(self.base), len(self.lora)
        w = dict(zip(self.base, tensors[:nb]))
        lora = dict(zip(self.lora, tensors[nb : nb + nl]))
        scale = tensors[nb + nl]
        return forward(self.cfg, w, input_ids, position_ids, attention_mask, past_key, past_value, lora, scale)


def zero_lora(cfg: Config, rank: int) -> dict:
    """The base model as a LoRA: A random-free zeros, B zeros (B = 0 is what matters)."""
    out = {}
    for i in range(cfg.num_hidden_layers):
        for m in LORA_MODULES:
            o, n = module_shape(cfg, m)
            out[f"lora.{i}.{m}.A"] = torch.zeros(rank, n)
            out[f"lora.{i}.{m}.B"] = torch.zeros(o, rank)
    return out


def input_names(cfg: Config) -> list[str]:
    return (
        ["input_ids", "position_ids", "attention_mask", "past_key", "past_value"]
        + base_names(cfg)
        + lora_names(cfg)
        + ["lora_scale"]
    )


def export_decode(cfg: Config, weights: dict, path: str) -> None:
    graph = DecodeGraph(cfg).eval()
    b, s, p, r = 2, 3, 4, 2
    layers, h, dh = cfg.num_hidden_layers, cfg.num_attention_heads, cfg.head_dim
    lora = zero_lora(cfg, r)
    args = (
        torch.zeros(b, s, dtype=torch.long),
        torch.arange(p, p + s).unsqueeze(0).expand(b, s).contiguous(),
        torch.ones(b, p + s, dtype=torch.long),
        torch.zeros(layers, b, h, p, dh),
        torch.zeros(layers, b, h, p, dh),
        *[weights[n].detach() for n in base_names(cfg)],
        *[lora[n] for n in lora_names(cfg)],
        torch.tensor(2.0),
    )
    dyn = {
        "input_ids": {0: "batch", 1: "seq"},
        "position_ids": {0: "batch", 1: "seq"},
        "attention_mask": {0: "batch", 1: "total"},
        "past_key": {1: "batch", 3: "past"},
        "past_value": {1: "batch", 3: "past"},
        "logits": {0: "batch", 1: "seq"},
        "present_key": {1: "batch", 3: "total"},
        "present_value": {1: "batch", 3: "total"},
    }
    for n in lora_names(cfg):
        dyn[n] = {0: "rank"} if n.endswith(".A") else {1: "rank"}
    with torch.no_grad():
        torch.onnx.export(
            graph,
            args,
            path,
            input_names=input_names(cfg),
            output_names=["logits", "present_key", "present_value"],
            dynamic_axes=dyn,
            opset_version=17,
            do_constant_folding=True,
        )


def verify_with_ort(cfg: Config, weights: dict, path: str, log=print) -> float:
    """Max |logits| difference between onnxruntime and torch over cached, padded, LoRA cases."""
    import numpy as np
    import onnxruntime as ort

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    g = torch.Generator().manual_seed(0)
    layers, h, dh = cfg.num_hidden_layers, cfg.num_attention_heads, cfg.head_dim
    worst = 0.0
    for b, s, p, rank in [(1, 7, 0, 1), (3, 5, 6, 16), (2, 1, 9, 4), (1, 1, 0, 1)]:
        ids = torch.randint(7, cfg.vocab_size, (b, s), generator=g)
        am = torch.ones(b, p + s, dtype=torch.long)
        if b > 1:
            am[1, :2] = 0  # left padding in row 1
        pos = (am.cumsum(1) - 1).clamp(min=0)[:, p:]
        pk = torch.randn(layers, b, h, p, dh, generator=g)
        pv = torch.randn(layers, b, h, p, dh, generator=g)
        lora = {}
        for i in range(layers):
            for m in LORA_MODULES:
                o, n = module_shape(cfg, m)
                lora[f"lora.{i}.{m}.A"] = torch.randn(rank, n, generator=g) * 0.05
                lora[f"lora.{i}.{m}.B"] = torch.randn(o, rank, generator=g) * 0.05
        scale = torch.tensor(32.0 / rank)
        with torch.no_grad():
            ref = forward(cfg, weights, ids, pos, am, pk, pv, lora, scale)
        feeds = {
            "input_ids": ids.numpy(),
            "position_ids": pos.numpy(),
            "attention_mask": am.numpy(),
            "past_key": pk.numpy(),
            "past_value": pv.numpy(),
            "lora_scale": np.array(scale.item(), dtype=np.float32),
        }
        feeds.update({n: weights[n].detach().numpy() for n in base_names(cfg)})
        feeds.update({n: t.numpy() for n, t in lora.items()})
        out = sess.run(None, feeds)
        for got, want, name in zip(out, ref, ["logits", "present_key", "present_value"]):
            if tuple(got.shape) != tuple(want.shape):
                raise AssertionError(f"{name}: onnx shape {got.shape} != torch {tuple(want.shape)}")
            worst = max(worst, float(np.abs(got - want.numpy()).max()))
        log(f"ort check B={b} S={s} P={p} r={rank}: max diff so far {worst:.2e}")
    if worst > 1e-3:
        raise AssertionError(f"decode.onnx disagrees with torch: max diff {worst}")
    return worst
