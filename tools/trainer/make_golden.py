"""Write the trainer's golden vectors and the tiny grad graphs under tests/golden/.

    /usr/bin/python3 tools/trainer/make_golden.py

- tests/golden/trainer-golden.json: a tiny Llama config and weights, a LoRA adapter,
  a batch of three samples (RL + OPD, RL only, OPD only; forced tokens; one token
  whose log-ratio hits the +-20 clamp), the objective configuration, and what the
  independent torch-autograd reference (reference.py) computes: teacher and base
  log-probs, the loss and its parts, and the gradient of every LoRA tensor.
- tests/golden/grad-tiny-f64.onnx / grad-tiny-f32.onnx: grad.onnx exported for the
  tiny config (lora_grad.py), double precision for the finite-difference check.

Before writing, the hand-written backward is checked against autograd in Python on a
right-padded batch, so a broken exporter never produces committed graphs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import reference  # noqa: E402
from export_grad import export  # noqa: E402
from lora_grad import MODULES, LlamaShape, LoraGrad, base_tensor_names, lora_names  # noqa: E402

ROOT = HERE.parent.parent
OUT = ROOT / "tests" / "golden"
SEED = 20240517

TINY_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "vocab_size": 23,
    "hidden_size": 16,
    "intermediate_size": 24,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "tie_word_embeddings": True,
}
RANK, ALPHA = 4, 5.0
OBJECTIVE = {
    "temperature": 0.8,
    "clipLow": 0.2,
    "clipHigh": 0.28,
    "wRl": 1.0,
    "wOpd": 1.0,
    "klCoef": 0.1,
    "opdAdvantageClamp": 1.0,
    "topK": 4,
}
# Small max norm so that clipping is exercised; two steps so that the moments and
# bias corrections are (step 2 grads are recomputed at the stepped weights).
OPTIMIZER = {"lr": 0.01, "betas": [0.9, 0.98], "eps": 1e-8, "weightDecay": 0.1, "maxGradNorm": 0.05, "steps": 2}


def module_dims(m):
    return LlamaShape.from_config(TINY_CONFIG).module_dims(m)


def tiny_weights(g):
    c = TINY_CONFIG
    d, v = c["hidden_size"], c["vocab_size"]
    base = {}
    for name in base_tensor_names(LlamaShape.from_config(c)):
        if name == "model.embed_tokens.weight":
            base[name] = torch.randn(v, d, generator=g, dtype=torch.float64) * 0.5
        elif name.endswith("norm.weight"):
            base[name] = 1.0 + 0.1 * torch.randn(d, generator=g, dtype=torch.float64)
        else:
            m = name.split(".")[-2].removesuffix("_proj")
            fi, fo = module_dims(m)
            base[name] = torch.randn(fo, fi, generator=g, dtype=torch.float64) / fi**0.5
    lora = {}
    for i in range(c["num_hidden_layers"]):
        for m in MODULES:
            fi, fo = module_dims(m)
            lora[f"{i}.{m}"] = (
                torch.randn(RANK, fi, generator=g, dtype=torch.float64) * 0.12,
                torch.randn(fo, RANK, generator=g, dtype=torch.float64) * 0.12,
            )
    return base, lora


def make_samples(g, base, lora, scale):
    v = TINY_CONFIG["vocab_size"]
    specs = [
        # (prompt len, response len, forced positions, reward, hint len or None)
        (6, 7, [3, 4], 1.0, 3),
        (4, 5, [], -1.0, None),
        (5, 6, [2], 0.0, 2),
    ]
    samples = []
    temp = OBJECTIVE["temperature"]
    for n, (plen, rlen, forced, reward, hint) in enumerate(specs):
        prompt = torch.randint(7, v, (plen,), generator=g).tolist()
        response = torch.randint(7, v, (rlen,), generator=g).tolist()
        with torch.no_grad():
            lp = reference.response_logprobs(TINY_CONFIG, base, lora, scale, prompt, response, temp)
        y = torch.tensor(response)
        old = lp.gather(1, y[:, None])[:, 0] + 0.3 * torch.randn(rlen, generator=g, dtype=torch.float64)
        if n == 0:
            old[1] = old[1] - 25.0  # log-ratio beyond the +-20 clamp
        top = torch.topk(
            lp + 0.5 * torch.randn(lp.shape, generator=g, dtype=torch.float64), OBJECTIVE["topK"], -1
        ).indices
        old_top = lp.gather(1, top) + 0.3 * torch.randn(top.shape, generator=g, dtype=torch.float64)
        sample = {
            "sessionId": f"golden-{n}",
            "turn": 0,
            "promptIds": prompt,
            "responseIds": response,
            "forced": [t in forced for t in range(rlen)],
            "logprobs": old.tolist(),
            "topIds": top.tolist(),
            "topLogprobs": old_top.tolist(),
            "reward": reward,
        }
        if hint is not None:
            sample["hintedPromptIds"] = prompt[:-1] + torch.randint(7, v, (hint,), generator=g).tolist() + prompt[-1:]
        samples.append(sample)
    return samples


def add_frozen_base_scores(samples, base):
    """Teacher log-probs (base, LoRA off, hinted prompt) at the old top-K ids, and base
    log-probs (plain prompt) over the whole vocabulary at each response position for the KL term."""
    temp = OBJECTIVE["temperature"]
    for s in samples:
        with torch.no_grad():
            lp_base = reference.response_logprobs(TINY_CONFIG, base, None, 0.0, s["promptIds"], s["responseIds"], temp)
            s["baseLogprobs"] = lp_base.tolist()
            if "hintedPromptIds" in s:
                lp_t = reference.response_logprobs(
                    TINY_CONFIG, base, None, 0.0, s["hintedPromptIds"], s["responseIds"], temp
                )
                s["teacherTopLogprobs"] = lp_t.gather(1, torch.tensor(s["topIds"])).tolist()
            else:
                s["teacherTopLogprobs"] = None


def check_handwritten_backward(base, lora, scale):
    """LoraGrad (hand-written backward) against autograd on a right-padded batch."""
    shape = LlamaShape.from_config(TINY_CONFIG)
    g = torch.Generator().manual_seed(7)
    lens = [7, 4]
    T = max(lens)
    ids = torch.randint(0, shape.vocab_size, (2, T), generator=g)
    mask = torch.tensor([[1 if t < n else 0 for t in range(T)] for n in lens])
    pos = torch.arange(T).unsqueeze(0).repeat(2, 1)
    G = torch.randn(2, T, shape.vocab_size, generator=g, dtype=torch.float64) * mask[..., None]
    leaves = {k: (a.clone().requires_grad_(True), b.clone().requires_grad_(True)) for k, (a, b) in lora.items()}
    total = torch.zeros((), dtype=torch.float64)
    for row, n in enumerate(lens):
        logits = reference.forward_logits(TINY_CONFIG, base, leaves, scale, ids[row, :n])
        total = total + (logits * G[row, :n]).sum()
    total.backward()
    module = LoraGrad(shape, torch.float64)
    flat_lora = []
    for name in lora_names(shape):
        _, i, m, ab = name.split(".")
        flat_lora.append(lora[f"{i}.{m}"][0 if ab == "A" else 1])
    out = module(
        ids,
        pos,
        mask,
        *[base[n] for n in base_tensor_names(shape)],
        *flat_lora,
        torch.tensor(scale, dtype=torch.float64),
        G,
    )
    worst = 0.0
    for name, got in zip(lora_names(shape), out[1:]):
        _, i, m, ab = name.split(".")
        want = leaves[f"{i}.{m}"][0 if ab == "A" else 1].grad
        worst = max(worst, float((got - want).norm() / want.norm()))
    if worst > 1e-9:
        raise SystemExit(f"hand-written backward disagrees with autograd: worst relative error {worst:.3e}")
    print(f"hand-written backward vs autograd (padded batch): worst relative error {worst:.2e}")


def grad_norm(leaves) -> float:
    return float(torch.sqrt(sum((t.grad**2).sum() for pair in leaves.values() for t in pair)))


def run_optimizer(base, lora, scale, samples):
    """torch.optim.AdamW (decoupled weight decay) with clip_grad_norm_, OPTIMIZER["steps"] steps on the batch."""
    leaves = {k: (a.clone().requires_grad_(True), b.clone().requires_grad_(True)) for k, (a, b) in lora.items()}
    params = [t for pair in leaves.values() for t in pair]
    opt = torch.optim.AdamW(
        params,
        lr=OPTIMIZER["lr"],
        betas=tuple(OPTIMIZER["betas"]),
        eps=OPTIMIZER["eps"],
        weight_decay=OPTIMIZER["weightDecay"],
    )
    for _ in range(OPTIMIZER["steps"]):
        opt.zero_grad()
        loss, _ = reference.objective(TINY_CONFIG, base, leaves, scale, samples, OBJECTIVE)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, OPTIMIZER["maxGradNorm"])
        opt.step()
    return {
        f"lora.{k}.{ab}": {"shape": list(t.shape), "data": t.detach().flatten().tolist()}
        for k, (a, b) in leaves.items()
        for ab, t in (("A", a), ("B", b))
    }


def main() -> None:
    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(SEED)
    base, lora = tiny_weights(g)
    scale = ALPHA / RANK
    check_handwritten_backward(base, lora, scale)
    samples = make_samples(g, base, lora, scale)
    add_frozen_base_scores(samples, base)

    leaves = {k: (a.clone().requires_grad_(True), b.clone().requires_grad_(True)) for k, (a, b) in lora.items()}
    loss, parts = reference.objective(TINY_CONFIG, base, leaves, scale, samples, OBJECTIVE)
    loss.backward()

    after_steps = run_optimizer(base, lora, scale, samples)

    golden = {
        "about": "Trainer golden vectors: written by tools/trainer/make_golden.py "
        "with the torch-autograd reference (tools/trainer/reference.py). float64.",
        "seed": SEED,
        "config": TINY_CONFIG,
        "lora": {"rank": RANK, "alpha": ALPHA, "scale": scale, "targets": list(MODULES)},
        "objective": OBJECTIVE,
        "base": {k: {"shape": list(t.shape), "data": t.flatten().tolist()} for k, t in base.items()},
        "adapter": {
            f"lora.{k}.{ab}": {"shape": list(t.shape), "data": t.flatten().tolist()}
            for k, (a, b) in lora.items()
            for ab, t in (("A", a), ("B", b))
        },
        "optimizer": OPTIMIZER,
        # Trainer inputs only; what the frozen base says about them is an expected output.
        "samples": [{k: v for k, v in x.items() if k not in ("teacherTopLogprobs", "baseLogprobs")} for x in samples],
        "expected": {
            "loss": float(loss),
            "pg": float(parts["pg"]),
            "opd": float(parts["opd"]),
            "kl": float(parts["kl"]),
            "tokens": parts["tokens"],
            "frozenBase": [
                {"teacherTopLogprobs": x["teacherTopLogprobs"], "baseLogprobs": x["baseLogprobs"]} for x in samples
            ],
            "grads": {
                f"lora.{k}.{ab}": {"shape": list(t.grad.shape), "data": t.grad.flatten().tolist()}
                for k, (a, b) in leaves.items()
                for ab, t in (("A", a), ("B", b))
            },
            "gradNorm": grad_norm(leaves),
            "adapterAfterSteps": after_steps,
        },
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "trainer-golden.json").write_text(json.dumps(golden, indent=1) + "\n")
    (OUT / "tiny-config.json").write_text(json.dumps(TINY_CONFIG, indent=2) + "\n")
    export(TINY_CONFIG, OUT / "grad-tiny-f64.onnx", torch.float64)
    export(TINY_CONFIG, OUT / "grad-tiny-f32.onnx", torch.float32)
    print(
        f"loss {float(loss):.6f} pg {float(parts['pg']):.6f} opd {float(parts['opd']):.6f} "
        f"kl {float(parts['kl']):.6f} tokens {parts['tokens']}"
    )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
