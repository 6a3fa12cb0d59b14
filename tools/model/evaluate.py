"""Quick evaluation of a trained policy: batched sampling with the calculator, scored by
a Python reading of the pass criterion. Guides the build; the TypeScript engine's
`npm run bench:policy` is the real measurement.

  python3 tools/model/evaluate.py --model assets/models/policy --eval tools/model/out/eval.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys

import torch

import calculator
from criterion import judge
from data import prompt_ids
from model import Config, forward
from tokenizer import END, EQ, PAD, Tokenizer


@torch.no_grad()
def generate(
    cfg: Config,
    w: dict,
    tok: Tokenizer,
    prompts: list[list[int]],
    *,
    max_new: int = 320,
    temperature: float = 0.6,
    top_p: float = 0.95,
    top_k: int = 20,
    seed: int = 0,
) -> list[str]:
    g = torch.Generator().manual_seed(seed)
    b = len(prompts)
    plen = max(len(p) for p in prompts)
    ids = torch.full((b, plen), PAD, dtype=torch.long)
    am = torch.zeros((b, plen), dtype=torch.long)
    for r, p in enumerate(prompts):
        ids[r, plen - len(p) :] = torch.tensor(p)
        am[r, plen - len(p) :] = 1
    pos = (am.cumsum(1) - 1).clamp(min=0)
    empty = torch.zeros(cfg.num_hidden_layers, b, cfg.num_attention_heads, 0, cfg.head_dim)
    logits, pk, pv = forward(cfg, w, ids, pos, am, empty, empty)
    last = logits[:, -1]
    next_pos = pos[:, -1] + 1
    texts = [""] * b
    queue: list[list[int]] = [[] for _ in range(b)]
    done = [False] * b
    for _ in range(max_new):
        # sample
        scaled = last / temperature
        kth = torch.topk(scaled, top_k, dim=-1)
        probs = torch.softmax(kth.values, dim=-1)
        cum = probs.cumsum(-1)
        keep = (cum - probs) < top_p
        probs = probs * keep
        probs = probs / probs.sum(-1, keepdim=True)
        choice = torch.multinomial(probs, 1, generator=g).squeeze(1)
        sampled = kth.indices.gather(1, choice.unsqueeze(1)).squeeze(1)
        step_ids = []
        for r in range(b):
            if done[r]:
                step_ids.append(END)
                continue
            t = queue[r].pop(0) if queue[r] else int(sampled[r])
            if t == END:
                done[r] = True
            elif t == EQ:
                texts[r] += "="
                forced = calculator.completion(texts[r][:-1])
                if forced is not None:
                    queue[r] = tok.encode(forced)
            else:
                texts[r] += tok.decode([t])
            step_ids.append(t)
        if all(done):
            break
        inp = torch.tensor(step_ids, dtype=torch.long).unsqueeze(1)
        am = torch.cat([am, torch.ones(b, 1, dtype=torch.long)], dim=1)
        logits, pk, pv = forward(cfg, w, inp, next_pos.unsqueeze(1), am, pk, pv)
        last = logits[:, -1]
        next_pos = next_pos + 1
    return texts


def confirms_save(reply: str, index: int) -> bool:
    return (
        f"homework/{index}.txt" in reply
        or re.search(r"\b(appended|added|saved|wrote|written)\b", reply, re.I) is not None
    )


def run_eval(cfg: Config, w: dict, tok: Tokenizer, items: list[dict], seeds=(0,), batch: int = 24, log=print) -> dict:
    results: dict = {}
    for set_name in sorted({it["set"] for it in items}):
        rows = [it for it in items if it["set"] == set_name]
        agg = {
            k: 0
            for k in [
                "gold",
                "shown",
                "style_clean",
                "no_marker",
                "accepted",
                "h_clean",
                "h_no_marker",
                "h_gold",
                "h_accepted",
                "save",
            ]
        }
        n = 0
        examples = {}
        per_template: dict = {}
        for seed in seeds:
            for s in range(0, len(rows), batch):
                chunk = rows[s : s + batch]
                plain = generate(
                    cfg,
                    w,
                    tok,
                    [prompt_ids(tok, [{"role": "user", "content": it["first"]}]) for it in chunk],
                    seed=seed * 1000 + s,
                )
                hinted = generate(
                    cfg,
                    w,
                    tok,
                    [prompt_ids(tok, [{"role": "user", "content": it["first"] + "\n\n" + it["hint"]}]) for it in chunk],
                    seed=seed * 1000 + s + 1,
                )
                saves = generate(
                    cfg,
                    w,
                    tok,
                    [
                        prompt_ids(
                            tok,
                            [
                                {"role": "user", "content": it["first"]},
                                {"role": "assistant", "content": it["plain"]},
                                {"role": "user", "content": it["save"]},
                            ],
                        )
                        for it in chunk
                    ],
                    seed=seed * 1000 + s + 2,
                    max_new=60,
                )
                for it, a, h, sv in zip(chunk, plain, hinted, saves):
                    ja, jh = judge(a, it["gold"]), judge(h, it["gold"])
                    t = per_template.setdefault(it["template"], [0, 0, 0])
                    t[0] += ja["gold"]
                    t[1] += jh["gold"]
                    t[2] += 1
                    agg["gold"] += ja["gold"]
                    agg["shown"] += ja["shown"]
                    agg["style_clean"] += ja["style_clean"]
                    agg["no_marker"] += ja["no_marker"]
                    agg["accepted"] += ja["accepted"]
                    agg["h_clean"] += jh["style_clean"]
                    agg["h_no_marker"] += jh["no_marker"]
                    agg["h_gold"] += jh["gold"]
                    agg["h_accepted"] += jh["accepted"]
                    agg["save"] += confirms_save(sv, it["index"])
                    n += 1
                    if len(examples) < 3:
                        examples[it["id"]] = {"reply": a, "hinted": h, "save": sv}
        results[set_name] = {k: round(v / n, 4) for k, v in agg.items()} | {"n": n}
        log(f"[{set_name}] " + " ".join(f"{k}={v}" for k, v in results[set_name].items()))
        log(
            f"[{set_name}] gold/hinted-gold by template: "
            + ", ".join(f"{k} {g}/{hg}/{c}" for k, (g, hg, c) in sorted(per_template.items()))
        )
        for k, e in examples.items():
            log(f"--- {k} reply:\n{e['reply']}\n--- hinted:\n{e['hinted']}\n--- save: {e['save']}")
    return results


def load_policy(model_dir: str):
    from safetensors_io import read_safetensors

    with open(f"{model_dir}/config.json") as f:
        c = json.load(f)
    cfg = Config(**{k: c[k] for k in Config.__dataclass_fields__ if k in c})
    w = read_safetensors(f"{model_dir}/base.safetensors")
    return cfg, w, Tokenizer.load(f"{model_dir}/tokenizer.json")


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="assets/models/policy")
    ap.add_argument("--eval", default="tools/model/out/eval.jsonl")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args(argv)
    torch.set_num_threads(2)
    cfg, w, tok = load_policy(a.model)
    items = [json.loads(line) for line in open(a.eval)]
    if a.limit:
        items = [it for s in ("homework", "probe") for it in [x for x in items if x["set"] == s][: a.limit]]
    print(json.dumps(run_eval(cfg, w, tok, items, seeds=tuple(range(a.seeds))), indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
