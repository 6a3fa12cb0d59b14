"""Convert a Llama-architecture GGUF into a Hugging Face folder (fp32 safetensors,
tokenizer, chat template): `python -m gatelab_torch.convert_gguf MODEL.gguf OUT_DIR`.

Run by `npm run setup:python` for SmolLM2-135M-Instruct. transformers loads and
dequantizes a GGUF, but `save_pretrained` refuses a model it loaded from one; so a
fresh LlamaForCausalLM is built from the same config, the dequantized weights are
copied in (strictly: every tensor, no extra, no missing) and that model is saved.
The logits of the two are compared on a fixed prompt before anything is written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM


def write_classic_rope_theta(config_path: Path) -> None:
    """transformers 5 writes rope_theta inside rope_parameters; readers of the classic layout (the lab's
    policyConfig, engines) look for it at the top level. Both are written, with the same value."""
    config = json.loads(config_path.read_text())
    theta = (config.get("rope_parameters") or {}).get("rope_theta")
    if "rope_theta" not in config and theta is not None:
        config["rope_theta"] = theta
        config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def convert(gguf: Path, out: Path) -> None:
    folder, name = str(gguf.parent), gguf.name
    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    if loaded.config.model_type != "llama":
        raise SystemExit(f"{gguf}: model_type {loaded.config.model_type!r}; this converter writes Llama models only")
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    if not tokenizer.chat_template:
        raise SystemExit(f"{gguf}: no chat template in the GGUF; the trainer templates prompts with the model's own")

    config = loaded.config
    config.dtype = torch.float32
    # The weights are dequantized: the folder must not claim a GGUF quantization (an engine would try to apply it).
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    fresh = LlamaForCausalLM(config).to(torch.float32)
    fresh.load_state_dict(loaded.state_dict(), strict=True)
    fresh.eval()
    loaded.eval()

    ids = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is 12 times 7?"}],
        add_generation_prompt=True,
        return_tensors="pt",
        return_dict=True,
    )["input_ids"]
    with torch.no_grad():
        want = loaded(ids).logits
        got = fresh(ids).logits
    if not torch.equal(want, got):
        raise SystemExit(
            f"the converted model's logits differ from the GGUF's (max |diff| {float((want - got).abs().max()):.3e})"
        )

    out.mkdir(parents=True, exist_ok=True)
    fresh.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    write_classic_rope_theta(out / "config.json")
    print(
        f"converted {gguf.name}: {sum(p.numel() for p in fresh.parameters())} parameters, "
        f"logits identical on a {ids.shape[1]}-token prompt",
        file=sys.stderr,
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python -m gatelab_torch.convert_gguf MODEL.gguf OUT_DIR")
    convert(Path(sys.argv[1]), Path(sys.argv[2]))
