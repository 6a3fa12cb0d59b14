"""Shared fixtures: the golden vectors' tiny Llama as a transformers model, and the
offline SmolLM2 folder made by `npm run setup:python`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(HERE.parent))

GOLDEN = ROOT / "tests" / "golden" / "trainer-golden.json"
TINY_CONFIG = ROOT / "tests" / "golden" / "tiny-config.json"
MODULE_GROUP = {
    "q": "self_attn",
    "k": "self_attn",
    "v": "self_attn",
    "o": "self_attn",
    "gate": "mlp",
    "up": "mlp",
    "down": "mlp",
}


def gatelab_home() -> Path:
    return Path(os.environ.get("GATELAB_HOME") or Path.home() / ".cache" / "gatelab")


def smollm2_dir() -> Path:
    return gatelab_home() / "models" / "smollm2-135m-instruct"


def peft_param_name(key: str) -> str:
    """Golden `lora.<layer>.<module>.<A|B>` → the peft parameter name (adapter `default`)."""
    _, layer, module, part = key.split(".")
    return f"base_model.model.model.layers.{layer}.{MODULE_GROUP[module]}.{module}_proj.lora_{part}.default.weight"


@pytest.fixture(scope="session")
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def tiny_model(golden: dict, dtype=torch.float32):
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = json.loads(TINY_CONFIG.read_text())
    config = LlamaConfig(
        **{k: v for k, v in cfg.items() if k not in ("architectures", "model_type")}, attn_implementation="eager"
    )
    model = LlamaForCausalLM(config).to(dtype)
    state = {
        k: torch.tensor(v["data"], dtype=torch.float64).view(v["shape"]).to(dtype) for k, v in golden["base"].items()
    }
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected, unexpected
    assert set(missing) <= {"lm_head.weight"}, missing  # tied to the embeddings
    return model


@pytest.fixture
def smollm2() -> Path:
    path = smollm2_dir()
    if not (path / ".gatelab-model.json").exists():
        pytest.skip(f"{path} is missing: run `npm run setup:python`")
    return path


@pytest.fixture(scope="session")
def tiny_dir(golden, tmp_path_factory) -> Path:
    """The golden tiny Llama saved as a Hugging Face folder (no tokenizer: samples carry promptIds)."""
    path = tmp_path_factory.mktemp("tiny-llama")
    tiny_model(golden).save_pretrained(path)
    return path


def tiny_init(tiny_dir: Path, store: Path, **over) -> dict:
    params = {
        "modelDir": str(tiny_dir),
        "baseSha256": "ab" * 32,
        "storeDir": str(store),
        "lora": {
            "rank": 4,
            "alpha": 8,
            "targets": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
            "dtype": "F32",
        },
        "objective": {
            "temperature": 1,
            "clipLow": 0.2,
            "clipHigh": 0.28,
            "logRatioClamp": 20,
            "wRl": 1,
            "wOpd": 1,
            "klCoef": 0.05,
            "opdAdvantageClamp": 1,
            "entropyCoef": 0,
            "oldLogprobs": "rollout",
        },
        "optimizer": {"lr": 0.01, "betas": [0.9, 0.98], "eps": 1e-8, "weightDecay": 0.1, "maxGradNorm": 1.0},
        "seed": 7,
    }
    params.update(over)
    return params


def tiny_samples(golden: dict) -> list[dict]:
    """The golden samples as protocol samples: RL-only turns and one OPD turn whose teacher comes
    as teacherTopLogprobs."""
    out = []
    for s, fb in zip(golden["samples"], golden["expected"]["frozenBase"]):
        sample = json.loads(
            json.dumps({k: v for k, v in s.items() if k != "hintedPromptIds"})
        )  # a deep copy: tests mutate it
        sample["messages"] = [{"role": "user", "content": "tiny"}]
        if fb["teacherTopLogprobs"] is not None:
            sample["teacherTopLogprobs"] = fb["teacherTopLogprobs"]
        out.append(sample)
    return out
