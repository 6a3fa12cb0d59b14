"""A tiny Llama-architecture decoder (docs/internals.md, "The embedded policy").

RMSNorm (pre-norm), RoPE (HF rotate-half layout), multi-head attention without
bias, SwiGLU MLP, tied embeddings, no biases. Parameter names are Hugging
Face's (`model.layers.{i}.self_attn.q_proj.weight`, ...), so the safetensors
file reads the same on the GPU path.

The math lives in one functional forward, `forward()`, taking the weights as a
dict: training calls it with the module's parameters, the ONNX exporter with
graph inputs (weights are inputs, not initializers), LoRA included.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

LORA_MODULES = ("q", "k", "v", "o", "gate", "up", "down")
NEG_INF = -1e9  # additive mask value; finite, so a fully masked (padding) row stays finite


@dataclass
class Config:
    vocab_size: int
    hidden_size: int = 256
    intermediate_size: int = 704
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    max_position_embeddings: int = 2048
    rms_norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    tie_word_embeddings: bool = True

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    def hf_json(self) -> dict:
        d = asdict(self)
        d.update(
            {
                "architectures": ["LlamaForCausalLM"],
                "model_type": "llama",
                "num_key_value_heads": self.num_attention_heads,
                "hidden_act": "silu",
                "attention_bias": False,
                "mlp_bias": False,
                "torch_dtype": "float32",
                "bos_token_id": None,
                "eos_token_id": 4,
                "pad_token_id": 0,
            }
        )
        return d


def module_shape(cfg: Config, m: str) -> tuple[int, int]:
    """[out, in] of a LoRA target module."""
    d, f = cfg.hidden_size, cfg.intermediate_size
    return {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "gate": (f, d), "up": (f, d), "down": (d, f)}[m]


def weight_name(i: int, m: str) -> str:
    if m in ("q", "k", "v", "o"):
        return f"model.layers.{i}.self_attn.{m}_proj.weight"
    return f"model.layers.{i}.mlp.{m}_proj.weight"


def base_names(cfg: Config) -> list[str]:
    """Every base tensor name, in the order the decode graph takes them."""
    names = ["model.embed_tokens.weight"]
    for i in range(cfg.num_hidden_layers):
        names.append(f"model.layers.{i}.input_layernorm.weight")
        names += [weight_name(i, m) for m in ("q", "k", "v", "o")]
        names.append(f"model.layers.{i}.post_attention_layernorm.weight")
        names += [weight_name(i, m) for m in ("gate", "up", "down")]
    names.append("model.norm.weight")
    return names


def lora_names(cfg: Config) -> list[str]:
    return [f"lora.{i}.{m}.{ab}" for i in range(cfg.num_hidden_layers) for m in LORA_MODULES for ab in ("A", "B")]


def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope(position_ids: torch.Tensor, head_dim: int, theta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """cos, sin of shape [B, 1, S, Dh] for the given positions."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    freqs = position_ids.to(torch.float32).unsqueeze(-1) * inv_freq  # [B, S, Dh/2]
    emb = torch.cat((freqs, freqs), dim=-1).unsqueeze(1)
    return emb.cos(), emb.sin()


def linear(x: torch.Tensor, w: torch.Tensor, lora: dict | None, key: str, scale) -> torch.Tensor:
    """y = x Wᵀ (+ scale · (x Aᵀ) Bᵀ) on a 2-D x, which exports as Gemm with transB."""
    y = F.linear(x, w)
    if lora is not None:
        y = y + scale * F.linear(F.linear(x, lora[key + ".A"]), lora[key + ".B"])
    return y


def attention_bias(
    attention_mask: torch.Tensor, past_len_like: torch.Tensor, seq_len_like: torch.Tensor
) -> torch.Tensor:
    """Additive [B, 1, S, P+S] bias: causal over absolute slots, and masked where attention_mask is 0."""
    s = seq_len_like.shape[1]
    p = past_len_like.shape[3]
    q_pos = torch.arange(s, dtype=torch.int64) + p
    k_pos = torch.arange(p + s, dtype=torch.int64)
    causal = k_pos.unsqueeze(0) <= q_pos.unsqueeze(1)  # [S, P+S]
    allowed = causal.unsqueeze(0).unsqueeze(0) & (attention_mask.unsqueeze(1).unsqueeze(2) > 0)
    zero = torch.zeros((), dtype=torch.float32)
    neg = torch.full((), NEG_INF, dtype=torch.float32)
    return torch.where(allowed, zero, neg)


def forward(
    cfg: Config,
    w: dict,
    input_ids: torch.Tensor,
    position_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    past_key: torch.Tensor,
    past_value: torch.Tensor,
    lora: dict | None = None,
    lora_scale=None,
    return_hidden: bool = False,
):
    """Logits [B,S,V] and the present cache [L,B,H,P+S,Dh] (keys, values)."""
    b, s = input_ids.shape
    h_n, dh, d = cfg.num_attention_heads, cfg.head_dim, cfg.hidden_size
    x = F.embedding(input_ids, w["model.embed_tokens.weight"])  # [B,S,d]
    cos, sin = rope(position_ids, dh, cfg.rope_theta)
    bias = attention_bias(attention_mask, past_key, input_ids)
    presents_k, presents_v = [], []
    for i in range(cfg.num_hidden_layers):
        pre = f"model.layers.{i}."
        hn = rms_norm(x, w[pre + "input_layernorm.weight"], cfg.rms_norm_eps).reshape(b * s, d)
        q = linear(hn, w[weight_name(i, "q")], lora, f"lora.{i}.q", lora_scale).reshape(b, s, h_n, dh).transpose(1, 2)
        k = linear(hn, w[weight_name(i, "k")], lora, f"lora.{i}.k", lora_scale).reshape(b, s, h_n, dh).transpose(1, 2)
        v = linear(hn, w[weight_name(i, "v")], lora, f"lora.{i}.v", lora_scale).reshape(b, s, h_n, dh).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k_all = torch.cat((past_key[i], k), dim=2)
        v_all = torch.cat((past_value[i], v), dim=2)
        presents_k.append(k_all)
        presents_v.append(v_all)
        scores = torch.matmul(q, k_all.transpose(2, 3)) * (1.0 / math.sqrt(dh)) + bias
        att = torch.matmul(torch.softmax(scores, dim=-1), v_all)  # [B,H,S,Dh]
        att = att.transpose(1, 2).reshape(b * s, d)
        x = x + linear(att, w[weight_name(i, "o")], lora, f"lora.{i}.o", lora_scale).reshape(b, s, d)
        hn = rms_norm(x, w[pre + "post_attention_layernorm.weight"], cfg.rms_norm_eps).reshape(b * s, d)
        g = linear(hn, w[weight_name(i, "gate")], lora, f"lora.{i}.gate", lora_scale)
        u = linear(hn, w[weight_name(i, "up")], lora, f"lora.{i}.up", lora_scale)
        x = x + linear(F.silu(g) * u, w[weight_name(i, "down")], lora, f"lora.{i}.down", lora_scale).reshape(b, s, d)
    x = rms_norm(x, w["model.norm.weight"], cfg.rms_norm_eps)
    if return_hidden:
        return x
    logits = F.linear(x.reshape(b * s, d), w["model.embed_tokens.weight"]).reshape(b, s, -1)
    return logits, torch.stack(presents_k), torch.stack(presents_v)


class Policy(nn.Module):
    """Holds the base tensors under their HF names (a flat dict of parameters)."""

    def __init__(self, cfg: Config, seed: int):
        super().__init__()
        self.cfg = cfg
        gen = torch.Generator().manual_seed(seed)
        self.names = base_names(cfg)
        self.params = nn.ParameterList()
        std = 0.02
        out_std = std / math.sqrt(2 * cfg.num_hidden_layers)
        for name in self.names:
            if name.endswith("norm.weight"):
                t = torch.ones(cfg.hidden_size)
            elif name == "model.embed_tokens.weight":
                t = torch.randn(cfg.vocab_size, cfg.hidden_size, generator=gen) * std
            else:
                m = name.split(".")[-2].replace("_proj", "")
                out_f, in_f = module_shape(cfg, m)
                t = torch.randn(out_f, in_f, generator=gen) * (out_std if m in ("o", "down") else std)
            self.params.append(nn.Parameter(t))

    def weights(self) -> dict:
        return dict(zip(self.names, self.params))

    def forward_train(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Hidden states [B,S,d] for a right-padded batch with no cache."""
        b, s = input_ids.shape
        cfg = self.cfg
        position_ids = torch.arange(s).unsqueeze(0).expand(b, s)
        empty = torch.zeros(cfg.num_hidden_layers, b, cfg.num_attention_heads, 0, cfg.head_dim)
        return forward(cfg, self.weights(), input_ids, position_ids, attention_mask, empty, empty, return_hidden=True)
