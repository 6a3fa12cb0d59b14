"""Reference log-probs for the vLLM engine tests: transformers (+ peft for an
adapter) in fp32, one forward over prompt + response, log_softmax of the raw
logits (temperature 1, whole vocabulary) at each response position, and the
top-K of the same distribution.

stdin:  {"modelDir": str, "adapterDir": str | null, "k": int,
         "items": [{"promptIds": [int], "tokenIds": [int]}]}
stdout: [{"logprobs": [float], "topIds": [[int]], "topLogprobs": [[float]]}]
"""
import json
import sys

import torch
from transformers import AutoModelForCausalLM


def main() -> None:
    request = json.load(sys.stdin)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(request["modelDir"], dtype=torch.float32)
    if request.get("adapterDir"):
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, request["adapterDir"])
    model.eval()
    k = int(request["k"])
    out = []
    with torch.no_grad():
        for item in request["items"]:
            prompt, response = item["promptIds"], item["tokenIds"]
            ids = torch.tensor([prompt + response])
            logits = model(input_ids=ids).logits[0].float()
            logp = torch.log_softmax(logits, dim=-1)
            # The logits at position p predict token p + 1.
            rows = logp[len(prompt) - 1 : len(prompt) - 1 + len(response)]
            chosen = rows.gather(1, torch.tensor(response).unsqueeze(1)).squeeze(1)
            top = rows.topk(k, dim=-1)
            out.append(
                {
                    "logprobs": chosen.tolist(),
                    "topIds": top.indices.tolist(),
                    "topLogprobs": top.values.tolist(),
                }
            )
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
