"""Export grad.onnx: the embedded policy's LoRA vector-Jacobian graph (docs/internals.md).

    /usr/bin/python3 tools/trainer/export_grad.py \
        --config assets/models/policy/config.json --out assets/models/policy/grad.onnx

The graph takes the weights as inputs (no initializers), so one graph serves any
base weights and any adapter of any rank. `--dtype float64` exports the same
math in double precision (used by the finite-difference test).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lora_grad import LlamaShape, LoraGrad, base_tensor_names, lora_names  # noqa: E402

OPSET = 17


def example_inputs(shape: LlamaShape, dtype: torch.dtype, batch: int = 2, time: int = 5, rank: int = 2):
    """Arbitrary inputs of the right shapes; only their shapes and dtypes reach the graph."""
    g = torch.Generator().manual_seed(0)
    d, v = shape.hidden_size, shape.vocab_size
    input_ids = torch.randint(0, v, (batch, time), generator=g)
    position_ids = torch.arange(time).unsqueeze(0).repeat(batch, 1)
    attention_mask = torch.ones(batch, time, dtype=torch.int64)
    base = []
    for name in base_tensor_names(shape):
        if name == "model.embed_tokens.weight":
            t = torch.randn(v, d, generator=g)
        elif name.endswith("layernorm.weight") or name == "model.norm.weight":
            t = torch.ones(d)
        else:
            m = name.split(".")[-2].removesuffix("_proj")
            fan_in, fan_out = shape.module_dims(m)
            t = torch.randn(fan_out, fan_in, generator=g) / fan_in**0.5
        base.append(t.to(dtype))
    lora = []
    for name in lora_names(shape):
        m, ab = name.split(".")[2], name.split(".")[3]
        fan_in, fan_out = shape.module_dims(m)
        t = torch.randn(rank, fan_in, generator=g) if ab == "A" else torch.randn(fan_out, rank, generator=g)
        lora.append(t.to(dtype))
    scale = torch.tensor(2.0, dtype=dtype)
    grad_logits = torch.randn(batch, time, v, generator=g).to(dtype)
    return (input_ids, position_ids, attention_mask, *base, *lora, scale, grad_logits)


def export(config: dict, out: Path, dtype: torch.dtype) -> None:
    shape = LlamaShape.from_config(config)
    module = LoraGrad(shape, dtype).eval()
    names_base = base_tensor_names(shape)
    names_lora = lora_names(shape)
    input_names = ["input_ids", "position_ids", "attention_mask", *names_base, *names_lora, "lora_scale", "grad_logits"]
    output_names = ["logits", *[f"grad.{n}" for n in names_lora]]
    dynamic_axes: dict[str, dict[int, str]] = {
        "input_ids": {0: "batch", 1: "time"},
        "position_ids": {0: "batch", 1: "time"},
        "attention_mask": {0: "batch", 1: "time"},
        "grad_logits": {0: "batch", 1: "time"},
        "logits": {0: "batch", 1: "time"},
    }
    for n in names_lora:
        axis = 0 if n.endswith(".A") else 1
        dynamic_axes[n] = {axis: "rank"}
        dynamic_axes[f"grad.{n}"] = {axis: "rank"}
    out.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            module,
            example_inputs(shape, dtype),
            str(out),
            input_names=input_names,
            output_names=output_names,
            dynamic_axes=dynamic_axes,
            opset_version=OPSET,
            do_constant_folding=True,
        )
    check_io(out, input_names, output_names)


def check_io(path: Path, input_names: list[str], output_names: list[str]) -> None:
    """Fail loudly if the exporter dropped or renamed an input or output."""
    import onnx

    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    got_in = [i.name for i in model.graph.input]
    got_out = [o.name for o in model.graph.output]
    if got_in != input_names:
        missing = sorted(set(input_names) - set(got_in))
        raise SystemExit(f"grad.onnx inputs differ from the contract; missing {missing[:5]}")
    if got_out != output_names:
        raise SystemExit("grad.onnx outputs differ from the contract")
    if len(model.graph.initializer) and any(init.name in input_names for init in model.graph.initializer):
        raise SystemExit("grad.onnx must not bake weights in as initializers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True, type=Path, help="HF LlamaConfig-shaped config.json")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    args = parser.parse_args()
    torch.set_num_threads(2)
    config = json.loads(args.config.read_text())
    export(config, args.out, torch.float32 if args.dtype == "float32" else torch.float64)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes, {args.dtype})")


if __name__ == "__main__":
    main()
