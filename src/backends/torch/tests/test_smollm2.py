"""Real optimizer steps on a real pretrained model: SmolLM2-135M-Instruct (converted offline
by `npm run setup:python`), prompts through its own chat template, replies it generated
itself with their recorded log-probs and top-K (as an engine records them)."""

from __future__ import annotations

import torch

from gatelab_torch.distributed import Group
from gatelab_torch.trainer import TorchTrainer

PROMPTS = [
    "What is 12 times 7? Show your work.",
    "Tom has 5 apples and buys 8 more. How many apples does he have?",
    "Write one sentence about the sea.",
    "A train travels 60 km in 1.5 hours. What is its speed?",
]
REWARDS = [1.0, 1.0, -1.0, 0.0]
HINTS = [None, "Keep every step but drop the bold text.", None, "Write it plainly, like a student would."]
K = 4


def recorded_replies(model_dir, tokenizer_model):
    """Greedy replies and their raw (T = 1) log-probs and top-K under the base: what the engine would report."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    samples = []
    for i, text in enumerate(PROMPTS):
        messages = [{"role": "user", "content": text}]
        prompt = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True)[
            "input_ids"
        ]
        ids = torch.tensor([prompt])
        with torch.no_grad():
            out = model.generate(ids, max_new_tokens=16, do_sample=False, eos_token_id=tok.eos_token_id)
            response = out[0, len(prompt) :].tolist()
            logits = model(out).logits[0, len(prompt) - 1 : len(prompt) - 1 + len(response)]
        lp = torch.log_softmax(logits.float(), -1)
        top = lp.topk(K, -1)
        sample = {
            "sessionId": f"smol/session-{i}",
            "turn": 0,
            "messages": messages,
            "responseIds": response,
            "logprobs": lp.gather(1, torch.tensor(response)[:, None])[:, 0].tolist(),
            "topIds": top.indices.tolist(),
            "topLogprobs": top.values.tolist(),
            "reward": REWARDS[i],
        }
        if HINTS[i]:
            sample["hint"] = HINTS[i]
        samples.append(sample)
    return samples


def test_the_objective_falls_and_kl_to_the_base_grows_from_zero(smollm2, tmp_path):
    torch.manual_seed(0)
    samples = recorded_replies(str(smollm2), None)
    trainer = TorchTrainer(Group(), dtype="fp32")
    init = trainer.init(
        {
            "modelDir": str(smollm2),
            "baseSha256": "cd" * 32,
            "storeDir": str(tmp_path),
            "lora": {
                "rank": 16,
                "alpha": 32,
                "targets": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
                "dtype": "F32",
            },
            # rollout π_old: the ratio reads the engine's recorded log-probs, so the loss moves as the policy does.
            "objective": {"temperature": 1, "klCoef": 0.1, "oldLogprobs": "rollout"},
            "optimizer": {"lr": 2e-4, "betas": [0.9, 0.98], "eps": 1e-8, "weightDecay": 0.1, "maxGradNorm": 1.0},
            "seed": 3,
            "maxTokensPerCall": 256,
        }
    )
    # LoRA r16 on q,k,v,o,gate,up,down of a 30-layer model with GQA k/v.
    assert init["parameterCount"] == 4_884_480
    reports = [trainer.step({"samples": samples, "lr": 2e-4})["report"] for _ in range(4)]
    losses = [r["loss"] for r in reports]
    kls = [r["kl"] for r in reports]
    assert reports[0]["tokens"] == sum(len(s["responseIds"]) for s in samples)
    assert abs(kls[0]) < 1e-6  # a fresh adapter (B = 0) is the base
    assert kls[1] > 1e-6 and kls[-1] > kls[1], kls  # the policy leaves the base, and the KL says so
    assert all(r["klCoef"] == 0.1 for r in reports)
    assert losses[-1] < losses[0] - 1e-3, losses
    assert all(b < a for a, b in zip(losses, losses[1:])), losses


def test_a_collapsed_candidate_stays_under_the_update_norm_bound(smollm2, tmp_path):
    trainer = TorchTrainer(Group(), dtype="fp32")
    trainer.init(
        {
            "modelDir": str(smollm2),
            "baseSha256": "cd" * 32,
            "storeDir": str(tmp_path),
            "lora": {"rank": 16, "alpha": 32, "targets": ["q_proj", "v_proj"], "dtype": "BF16"},
            "optimizer": {"lr": 1e-5},
            "seed": 3,
        }
    )
    before = {n: p.detach().clone() for n, p in trainer.trainer.policy.named_lora}
    out = trainer.bad_candidate(
        {
            "kind": "collapsed",
            "seed": 9,
            "prompts": [[{"role": "user", "content": "What is 2 + 2?"}]],
            "maxUpdateNorm": 0.5,
            "note": "collapsed (test)",
        }
    )
    assert out["stored"] is True
    manifest = __import__("json").loads(open(out["manifestPath"]).read())
    assert manifest["kind"] == "injected" and manifest["note"] == "collapsed (test)"
    assert trainer.trainer.written_update_norm("BF16") == 0.0  # the run's fresh adapter is back (B = 0)
    from safetensors.torch import load_file

    tensors = load_file(out["adapter"]["path"])
    assert all(t.dtype == torch.bfloat16 for t in tensors.values())
    norm = (
        sum(
            float((2.0 * (tensors[k.replace("lora_A", "lora_B")].double() @ t.double())).pow(2).sum())
            for k, t in tensors.items()
            if "lora_A" in k
        )
        ** 0.5
    )
    assert 0 < norm <= 0.5
    for n, p in trainer.trainer.policy.named_lora:
        assert torch.equal(p.detach(), before[n])
