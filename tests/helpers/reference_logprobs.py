"""Reference log-probs for the vLLM engine tests: the torch trainer's own
forward (gatelab_torch.policy.Policy.response_logprobs at temperature 1, fp32,
the adapter's factors copied into its LoRA) over prompt + response, read at
each response token, and the top-K of the same distribution. Without the
trainer's sources on PYTHONPATH: transformers (+ peft) directly, the same
computation.

stdin:  {"modelDir": str, "adapterDir": str | null, "k": int,
         "items": [{"promptIds": [int], "tokenIds": [int]}]}
stdout: {"source": "trainer" | "transformers",
         "rows": [{"logprobs": [float], "topIds": [[int]], "topLogprobs": [[float]]}]}
"""

import json
import sys
from pathlib import Path

import torch


def trainer_rows(request):
    from safetensors.torch import load_file

    from gatelab_torch.policy import LoraSettings, Policy, Sequence_

    adapter_dir = request.get("adapterDir")
    if adapter_dir:
        config = json.loads((Path(adapter_dir) / "adapter_config.json").read_text())
        lora = LoraSettings(
            rank=int(config["r"]),
            alpha=float(config["lora_alpha"]),
            targets=tuple(config["target_modules"]),
            dtype="F32",
        )
    else:
        lora = LoraSettings(rank=1, alpha=1.0, targets=("q_proj",), dtype="F32")
    policy = Policy(request["modelDir"], lora, device=torch.device("cpu"), dtype=torch.float32)
    if adapter_dir:
        tensors = load_file(str(Path(adapter_dir) / "adapter_model.safetensors"))
        with torch.no_grad():
            for name, param in policy.named_lora:
                param.copy_(tensors[name.replace(".default.", ".")].to(param.dtype))
    rows = [Sequence_(prompt_ids=i["promptIds"], response_ids=i["tokenIds"]) for i in request["items"]]
    with torch.no_grad():
        return policy.response_logprobs(rows, 1.0, adapter=bool(adapter_dir))


def transformers_rows(request):
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(request["modelDir"], dtype=torch.float32)
    if request.get("adapterDir"):
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, request["adapterDir"])
    model.eval()
    out = []
    with torch.no_grad():
        for item in request["items"]:
            prompt, response = item["promptIds"], item["tokenIds"]
            logits = model(input_ids=torch.tensor([prompt + response])).logits[0].float()
            # The logits at position p predict token p + 1.
            out.append(torch.log_softmax(logits, dim=-1)[len(prompt) - 1 : len(prompt) - 1 + len(response)])
    return out


def main() -> None:
    request = json.load(sys.stdin)
    try:
        rows, source = trainer_rows(request), "trainer"
    except ImportError:
        rows, source = transformers_rows(request), "transformers"
    k = int(request["k"])
    result = []
    for item, logp in zip(request["items"], rows):
        chosen = logp.gather(1, torch.tensor(item["tokenIds"]).unsqueeze(1)).squeeze(1)
        top = logp.topk(k, dim=-1)
        result.append({"logprobs": chosen.tolist(), "topIds": top.indices.tolist(), "topLogprobs": top.values.tolist()})
    json.dump({"source": source, "rows": result}, sys.stdout)


if __name__ == "__main__":
    main()
