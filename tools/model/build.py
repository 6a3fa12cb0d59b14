"""Builds the embedded policy end to end (see tools/model/README.md):

  /usr/bin/python3 tools/model/build.py            # the committed build's defaults

A later stage continues an earlier build (`--init DIR`: its weights and
tokenizer, the architecture checked against its manifest) on a corpus with
other settings, and its manifest lists every stage's rebuild command in order.

corpus (TypeScript generator, held-out instances excluded) → tokenizer → seeded
pretraining → decode.onnx (checked against torch with onnxruntime when it is
installed) → quick eval → manifest. Run from the repository root.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time

# libgomp's default busy-wait makes each parallel region stall whenever one of
# the two threads is descheduled, which on a shared two-core machine costs more
# than the second thread gains. Must be set before torch loads OpenMP.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from data import load_examples  # noqa: E402
from export_onnx import export_decode, verify_with_ort  # noqa: E402
from model import Config  # noqa: E402
from safetensors_io import read_safetensors, write_safetensors  # noqa: E402
from tokenizer import Tokenizer, build_vocab  # noqa: E402
from train import train  # noqa: E402

DEFAULTS = dict(
    seed=1,
    count=20000,
    steps=2000,
    token_budget=3072,
    lr=3e-3,
    warmup=60,
    weight_decay=0.05,
    vocab=1280,
    hidden=192,
    layers=4,
    heads=6,
    ffn=512,
    max_len=1024,
    plain_rate=0.04,
    plain_continue_rate=0.0,
    digit_weight=3.0,
)


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tokenizer_for_corpus(a, corpus: str) -> Tokenizer:
    texts = []
    for path in (corpus, os.path.join(a.work, "eval.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                texts.extend(m["content"] for m in rec["messages"]) if "messages" in rec else texts.extend(
                    [rec["first"], rec["hint"], rec["plain"], rec["save"]]
                )
    return Tokenizer(build_vocab(texts, a.vocab))


def load_earlier_stage(a) -> tuple[dict, Tokenizer, list[dict]]:
    """Weights, tokenizer and stage list of the build in `a.init`; its architecture must be the flags'."""
    with open(os.path.join(a.init, "manifest.json")) as f:
        earlier = json.load(f)
    arch = earlier["architecture"]
    wanted = {
        "vocab_size": a.vocab,
        "hidden_size": a.hidden,
        "num_hidden_layers": a.layers,
        "num_attention_heads": a.heads,
        "intermediate_size": a.ffn,
    }
    mismatched = {k: (arch[k], v) for k, v in wanted.items() if arch[k] != v}
    if mismatched:
        raise SystemExit(f"--init {a.init}: architecture differs from the flags (theirs, ours): {mismatched}")
    stages = earlier["stages"]
    tok = Tokenizer.load(os.path.join(a.init, "tokenizer.json"))
    return read_safetensors(os.path.join(a.init, "base.safetensors")), tok, stages


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for k, v in DEFAULTS.items():
        ap.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    ap.add_argument(
        "--init",
        default="",
        help="continue this earlier build (its base.safetensors, tokenizer.json and manifest.json)",
    )
    ap.add_argument("--out", default="assets/models/policy")
    ap.add_argument("--work", default="tools/model/out")
    ap.add_argument("--eval-seeds", type=int, default=1)
    ap.add_argument("--skip-eval", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--checkpoint-every", type=int, default=0, help="write the weights to WORK/checkpoint.safetensors every N steps"
    )
    ap.add_argument(
        "--vectors",
        default="tools/model/tokenizer_vectors.json",
        help="where make_vectors.py writes the TypeScript tokenizer's test vectors",
    )
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    t_start = time.time()
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.work, exist_ok=True)
    log_path = os.path.join(a.work, "build.log")
    log_file = open(log_path, "w")

    def log(msg: str) -> None:
        print(msg, flush=True)
        log_file.write(msg + "\n")
        log_file.flush()

    # 1. corpus, from the TypeScript generator (the same code the run uses).
    cmd = [
        "npx",
        "tsx",
        "tools/model/corpus/buildCorpus.ts",
        "--seed",
        str(a.seed),
        "--count",
        str(a.count),
        "--plain-rate",
        str(a.plain_rate),
        "--plain-continue-rate",
        str(a.plain_continue_rate),
        "--out",
        a.work,
    ]
    log("corpus: " + " ".join(cmd))
    res = subprocess.run(cmd, check=True, capture_output=True, text=True)
    log(res.stdout.strip())
    corpus = os.path.join(a.work, "corpus.jsonl")
    corpus_sha = sha256(corpus)

    # 2. tokenizer: an earlier stage's, or built from this corpus
    init = None
    earlier_stages: list[dict] = []
    if a.init:
        init, tok, earlier_stages = load_earlier_stage(a)
        log(f"continuing {a.init} (stages before: {len(earlier_stages)})")
    else:
        tok = tokenizer_for_corpus(a, corpus)
    reserved = sum(1 for v in tok.vocab if v.startswith("<|reserved_"))
    log(f"tokenizer: {tok.vocab_size} entries ({reserved} reserved)")

    # 3. train
    examples = load_examples(tok, corpus, a.max_len)
    log(f"examples: {len(examples)}, tokens {sum(len(e[0]) for e in examples)}")
    cfg = Config(
        vocab_size=tok.vocab_size,
        hidden_size=a.hidden,
        intermediate_size=a.ffn,
        num_hidden_layers=a.layers,
        num_attention_heads=a.heads,
    )

    def checkpoint(model, step: int) -> None:
        path = os.path.join(a.work, "checkpoint.safetensors")
        write_safetensors(
            path, {n: p.detach().clone() for n, p in model.weights().items()}, {"format": "pt", "step": str(step)}
        )
        log(f"checkpoint at step {step} → {path}")

    model, stats = train(
        cfg,
        examples,
        seed=a.seed,
        init=init,
        checkpoint=checkpoint,
        checkpoint_every=a.checkpoint_every,
        steps=a.steps,
        token_budget=a.token_budget,
        lr=a.lr,
        warmup=a.warmup,
        weight_decay=a.weight_decay,
        log=log,
        digit_weight=a.digit_weight,
        digit_ids=[tok.piece_to_id[p] for p in [str(d) for d in range(10)] + [f" {d}" for d in range(10)]],
    )
    weights = {n: p.detach().clone() for n, p in model.weights().items()}
    n_params = sum(t.numel() for t in weights.values())
    log(f"trained {n_params} parameters in {stats['train_seconds'] / 60:.1f} min, final loss {stats['final_loss']:.4f}")

    # 4. write assets
    write_safetensors(os.path.join(a.out, "base.safetensors"), weights, {"format": "pt"})
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(cfg.hf_json(), f, indent=1)
    with open(os.path.join(a.out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok.to_json(), f, ensure_ascii=False)
    onnx_path = os.path.join(a.out, "decode.onnx")
    export_decode(cfg, weights, onnx_path)
    try:
        diff = verify_with_ort(cfg, weights, onnx_path, log=log)
        log(f"decode.onnx matches torch (max |diff| {diff:.2e})")
    except ImportError:
        diff = None
        log("onnxruntime (Python) not installed: decode.onnx not cross-checked here")
    subprocess.run(
        [sys.executable, "tools/model/make_vectors.py", os.path.join(a.out, "tokenizer.json"), a.vectors], check=True
    )

    # 5. quick eval on the held-out homework and probe prompts
    evals = None
    if not a.skip_eval:
        from evaluate import run_eval

        items = [json.loads(line) for line in open(os.path.join(a.work, "eval.jsonl"))]
        evals = run_eval(cfg, weights, tok, items, seeds=tuple(range(a.eval_seeds)), log=log)

    # 6. manifest
    files = {}
    for name in ("base.safetensors", "config.json", "tokenizer.json", "decode.onnx", "grad.onnx"):
        p = os.path.join(a.out, name)
        if os.path.exists(p):
            files[name] = {"sha256": sha256(p), "bytes": os.path.getsize(p)}
    rebuild = (
        ["/usr/bin/python3", "tools/model/build.py"]
        + [f"--{k.replace('_', '-')}={getattr(a, k)}" for k in DEFAULTS]
        + ([f"--init={a.init}"] if a.init else [])
        + [f"--out={a.out}", f"--work={a.work}"]
    )
    # Each stage's flags are in its command; the rest of the manifest describes the last stage.
    stage = {
        "rebuild": " ".join(shlex.quote(x) for x in rebuild),
        "corpus_sha256": corpus_sha,
        "train_seconds": round(stats["train_seconds"], 1),
        "final_loss": round(stats["final_loss"], 5),
    }
    manifest = {
        "name": "gatelab-embedded-policy",
        "files": files,
        "parameters": n_params,
        "architecture": {
            "type": "llama",
            "vocab_size": cfg.vocab_size,
            "hidden_size": cfg.hidden_size,
            "intermediate_size": cfg.intermediate_size,
            "num_hidden_layers": cfg.num_hidden_layers,
            "num_attention_heads": cfg.num_attention_heads,
            "head_dim": cfg.head_dim,
            "max_position_embeddings": cfg.max_position_embeddings,
            "rope_theta": cfg.rope_theta,
            "rms_norm_eps": cfg.rms_norm_eps,
            "tie_word_embeddings": True,
        },
        "seed": a.seed,
        "corpus": {
            "sha256": corpus_sha,
            "conversations": a.count,
            "examples": len(examples),
            "plain_rate": a.plain_rate,
            "plain_continue_rate": a.plain_continue_rate,
        },
        "training": {
            "steps": a.steps,
            "token_budget": a.token_budget,
            "lr": a.lr,
            "warmup": a.warmup,
            "weight_decay": a.weight_decay,
            "digit_weight": a.digit_weight,
            "tokens_seen": stats["tokens"],
            "train_seconds": round(stats["train_seconds"], 1),
            "final_loss": round(stats["final_loss"], 5),
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
        },
        "build_seconds": round(time.time() - t_start, 1),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "final_loss": round(stats["final_loss"], 5),
        "onnx_max_abs_diff": diff,
        "eval": evals,
        "stages": earlier_stages + [stage],
    }
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    log(f"done in {(time.time() - t_start) / 60:.1f} min → {a.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
