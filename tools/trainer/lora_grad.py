"""The LoRA vector-Jacobian product of the embedded Llama policy, written out by hand.

ONNX export traces only a forward pass, so the backward pass is spelled out here
as ordinary tensor operations: `LoraGrad.forward` runs the model forward, keeps
what the backward needs, and then walks the layers in reverse to turn
`grad_logits` (dLoss/dlogits, computed by the TypeScript objective) into the
gradients of every LoRA A and B. Tracing that function gives `grad.onnx`.

The forward must equal `decode.onnx` with no cache (docs/internals.md): RMSNorm
(pre-norm), HF-style RoPE (rotate_half), causal multi-head attention without
bias masked by `attention_mask`, SwiGLU MLP, tied embeddings. A LoRA module is
`y = x W^T + scale * (x A^T) B^T`.

`reference.py` checks all of this independently with torch autograd.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

MODULES = ("q", "k", "v", "o", "gate", "up", "down")
ATTN_MODULES = ("q", "k", "v", "o")
# Added to the scores of masked keys. Finite on purpose: a padded query whose
# every key is masked then gets a finite (if meaningless) row instead of NaN,
# and exp(-1e9 - max) underflows to exactly 0 for the real rows.
MASK_BIAS = -1.0e9


@dataclass(frozen=True)
class LlamaShape:
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    rms_norm_eps: float
    rope_theta: float

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @staticmethod
    def from_config(config: dict) -> "LlamaShape":
        if not config.get("tie_word_embeddings", True):
            raise ValueError("grad.onnx supports tied embeddings only (docs/internals.md)")
        heads = int(config["num_attention_heads"])
        kv_heads = int(config.get("num_key_value_heads", heads))
        if kv_heads != heads:
            raise ValueError(
                "grad.onnx supports multi-head attention only (num_key_value_heads == num_attention_heads)"
            )
        return LlamaShape(
            vocab_size=int(config["vocab_size"]),
            hidden_size=int(config["hidden_size"]),
            intermediate_size=int(config["intermediate_size"]),
            num_hidden_layers=int(config["num_hidden_layers"]),
            num_attention_heads=heads,
            rms_norm_eps=float(config.get("rms_norm_eps", 1e-5)),
            rope_theta=float(config.get("rope_theta", 10000.0)),
        )

    def module_dims(self, module: str) -> tuple[int, int]:
        """(in, out) of a LoRA target module."""
        d, f = self.hidden_size, self.intermediate_size
        return {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "gate": (d, f), "up": (d, f), "down": (f, d)}[
            module
        ]


def base_tensor_names(shape: LlamaShape) -> list[str]:
    names = ["model.embed_tokens.weight"]
    for i in range(shape.num_hidden_layers):
        p = f"model.layers.{i}"
        names += [
            f"{p}.input_layernorm.weight",
            f"{p}.self_attn.q_proj.weight",
            f"{p}.self_attn.k_proj.weight",
            f"{p}.self_attn.v_proj.weight",
            f"{p}.self_attn.o_proj.weight",
            f"{p}.post_attention_layernorm.weight",
            f"{p}.mlp.gate_proj.weight",
            f"{p}.mlp.up_proj.weight",
            f"{p}.mlp.down_proj.weight",
        ]
    names.append("model.norm.weight")
    return names


def base_weight_name(layer: int, module: str) -> str:
    group = "self_attn" if module in ATTN_MODULES else "mlp"
    return f"model.layers.{layer}.{group}.{module}_proj.weight"


def lora_names(shape: LlamaShape) -> list[str]:
    return [f"lora.{i}.{m}.{ab}" for i in range(shape.num_hidden_layers) for m in MODULES for ab in ("A", "B")]


# ---------------------------------------------------------------- pieces


def rms_forward(x: torch.Tensor, w: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r = torch.rsqrt((x * x).mean(-1, keepdim=True) + eps)
    xhat = x * r
    return xhat * w, xhat, r


def rms_backward(dy: torch.Tensor, w: torch.Tensor, xhat: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    # y = xhat * w, xhat = x * r, r = (mean(x^2) + eps)^-1/2
    # dx = r * (dxhat - xhat * mean(dxhat * xhat))
    dxhat = dy * w
    return r * (dxhat - xhat * (dxhat * xhat).mean(-1, keepdim=True))


def lora_forward(x, w, a, b, scale):
    z = x @ a.transpose(0, 1)  # [B,T,r]
    return x @ w.transpose(0, 1) + scale * (z @ b.transpose(0, 1)), z


def lora_backward(dy, x, z, w, a, b, scale):
    """dx, dA, dB of y = x W^T + scale (x A^T) B^T, summed over batch and time."""
    dz = scale * (dy @ b)  # [B,T,r]
    dx = dy @ w + dz @ a
    dy2 = dy.reshape(-1, dy.shape[-1])
    x2 = x.reshape(-1, x.shape[-1])
    z2 = z.reshape(-1, z.shape[-1])
    dz2 = dz.reshape(-1, dz.shape[-1])
    grad_b = scale * (dy2.transpose(0, 1) @ z2)  # [out,r]
    grad_a = dz2.transpose(0, 1) @ x2  # [r,in]
    return dx, grad_a, grad_b


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotate_half_transposed(y: torch.Tensor) -> torch.Tensor:
    # rotate_half maps (x1, x2) to (-x2, x1); its transpose maps (y1, y2) to (y2, -y1).
    half = y.shape[-1] // 2
    return torch.cat((y[..., half:], -y[..., :half]), dim=-1)


def rope_tables(position_ids: torch.Tensor, head_dim: int, theta: float, dtype: torch.dtype):
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    inv_freq = inv_freq.to(dtype)
    freqs = position_ids.to(dtype).unsqueeze(-1) * inv_freq  # [B,T,Dh/2]
    emb = torch.cat((freqs, freqs), dim=-1)  # [B,T,Dh]
    return emb.cos().unsqueeze(1), emb.sin().unsqueeze(1)  # [B,1,T,Dh]


def attention_bias(attention_mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """[B,1,T,T] additive bias: 0 where query t may see key s (s <= t and mask[s] = 1)."""
    ones = torch.ones_like(attention_mask[0])
    index = torch.cumsum(ones, 0) - 1  # 0..T-1, traced from the input's shape
    causal = index.unsqueeze(0) <= index.unsqueeze(1)  # [T(query), T(key)]
    allowed = causal.unsqueeze(0) & (attention_mask.unsqueeze(1) > 0)  # [B,T,T]
    zero = torch.zeros((), dtype=dtype)
    masked = torch.full((), MASK_BIAS, dtype=dtype)
    return torch.where(allowed, zero, masked).unsqueeze(1)


# ---------------------------------------------------------------- the graph


class LoraGrad(torch.nn.Module):
    """forward(input_ids, position_ids, attention_mask, *base, *lora, lora_scale, grad_logits)
    -> (logits, *lora_grads) with lora_grads in `lora_names` order prefixed `grad.`."""

    def __init__(self, shape: LlamaShape, dtype: torch.dtype):
        super().__init__()
        self.shape = shape
        self.dtype = dtype
        self.base_names = base_tensor_names(shape)
        self.lora_names = lora_names(shape)

    def forward(self, input_ids, position_ids, attention_mask, *rest):
        s = self.shape
        nb, nl = len(self.base_names), len(self.lora_names)
        base = dict(zip(self.base_names, rest[:nb]))
        lora = dict(zip(self.lora_names, rest[nb : nb + nl]))
        scale = rest[nb + nl]
        grad_logits = rest[nb + nl + 1]

        heads, head_dim = s.num_attention_heads, s.head_dim
        batch, time = input_ids.shape[0], input_ids.shape[1]
        inv_sqrt_d = 1.0 / math.sqrt(head_dim)
        embed = base["model.embed_tokens.weight"]
        cos, sin = rope_tables(position_ids, head_dim, s.rope_theta, self.dtype)
        bias = attention_bias(attention_mask, self.dtype)

        def split_heads(x):
            return x.reshape(batch, time, heads, head_dim).transpose(1, 2)

        def merge_heads(x):
            return x.transpose(1, 2).reshape(batch, time, heads * head_dim)

        def lin(i, m, x):
            return lora_forward(
                x, base[base_weight_name(i, m)], lora[f"lora.{i}.{m}.A"], lora[f"lora.{i}.{m}.B"], scale
            )

        # ---- forward, keeping what the backward needs
        h = embed[input_ids]
        saved = []
        for i in range(s.num_hidden_layers):
            p = f"model.layers.{i}"
            n1, xhat1, r1 = rms_forward(h, base[f"{p}.input_layernorm.weight"], s.rms_norm_eps)
            q, zq = lin(i, "q", n1)
            k, zk = lin(i, "k", n1)
            v, zv = lin(i, "v", n1)
            qh, kh, vh = split_heads(q), split_heads(k), split_heads(v)
            qr = qh * cos + rotate_half(qh) * sin
            kr = kh * cos + rotate_half(kh) * sin
            scores = (qr @ kr.transpose(-1, -2)) * inv_sqrt_d + bias
            probs = torch.softmax(scores, dim=-1)
            ctx = merge_heads(probs @ vh)
            att, zo = lin(i, "o", ctx)
            h2 = h + att
            n2, xhat2, r2 = rms_forward(h2, base[f"{p}.post_attention_layernorm.weight"], s.rms_norm_eps)
            g, zg = lin(i, "gate", n2)
            u, zu = lin(i, "up", n2)
            sig = torch.sigmoid(g)
            act = g * sig
            mid = act * u
            down, zd = lin(i, "down", mid)
            saved.append(
                dict(
                    n1=n1,
                    xhat1=xhat1,
                    r1=r1,
                    zq=zq,
                    zk=zk,
                    zv=zv,
                    qr=qr,
                    kr=kr,
                    vh=vh,
                    probs=probs,
                    ctx=ctx,
                    zo=zo,
                    n2=n2,
                    xhat2=xhat2,
                    r2=r2,
                    zg=zg,
                    zu=zu,
                    g=g,
                    sig=sig,
                    act=act,
                    u=u,
                    mid=mid,
                    zd=zd,
                )
            )
            h = h2 + down
        nf, xhatf, rf = rms_forward(h, base["model.norm.weight"], s.rms_norm_eps)
        logits = nf @ embed.transpose(0, 1)

        # ---- backward
        grads: dict[str, torch.Tensor] = {}

        def lin_back(i, m, dy, x, z):
            dx, ga, gb = lora_backward(
                dy, x, z, base[base_weight_name(i, m)], lora[f"lora.{i}.{m}.A"], lora[f"lora.{i}.{m}.B"], scale
            )
            grads[f"lora.{i}.{m}.A"] = ga
            grads[f"lora.{i}.{m}.B"] = gb
            return dx

        dnf = grad_logits @ embed
        dh = rms_backward(dnf, base["model.norm.weight"], xhatf, rf)
        for i in reversed(range(s.num_hidden_layers)):
            p = f"model.layers.{i}"
            c = saved[i]
            # MLP: h3 = h2 + down(silu(gate(n2)) * up(n2))
            dmid = lin_back(i, "down", dh, c["mid"], c["zd"])
            dact = dmid * c["u"]
            du = dmid * c["act"]
            sig = c["sig"]
            dg = dact * (sig * (1.0 + c["g"] * (1.0 - sig)))
            dn2 = lin_back(i, "gate", dg, c["n2"], c["zg"]) + lin_back(i, "up", du, c["n2"], c["zu"])
            dh2 = dh + rms_backward(dn2, base[f"{p}.post_attention_layernorm.weight"], c["xhat2"], c["r2"])
            # attention: h2 = h + o(softmax(rope(q) rope(k)^T / sqrt(d) + bias) v)
            dctx = split_heads(lin_back(i, "o", dh2, c["ctx"], c["zo"]))
            probs = c["probs"]
            dprobs = dctx @ c["vh"].transpose(-1, -2)
            dvh = probs.transpose(-1, -2) @ dctx
            dscores = probs * (dprobs - (dprobs * probs).sum(-1, keepdim=True)) * inv_sqrt_d
            dqr = dscores @ c["kr"]
            dkr = dscores.transpose(-1, -2) @ c["qr"]
            dqh = dqr * cos + rotate_half_transposed(dqr * sin)
            dkh = dkr * cos + rotate_half_transposed(dkr * sin)
            dn1 = (
                lin_back(i, "q", merge_heads(dqh), c["n1"], c["zq"])
                + lin_back(i, "k", merge_heads(dkh), c["n1"], c["zk"])
                + lin_back(i, "v", merge_heads(dvh), c["n1"], c["zv"])
            )
            dh = dh2 + rms_backward(dn1, base[f"{p}.input_layernorm.weight"], c["xhat1"], c["r1"])

        return (logits, *[grads[n] for n in self.lora_names])
