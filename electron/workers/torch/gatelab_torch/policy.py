"""The policy the trainer optimises: any Hugging Face causal LM from a local folder,
wrapped with a peft LoRA, plus what the objective needs from it — response-position
log-probs with the adapter on (the policy) or off (the frozen base: the OPD teacher
and the KL reference), and prompt ids from the model's own chat template."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer


@dataclass(frozen=True)
class LoraSettings:
    rank: int
    alpha: float
    targets: tuple[str, ...]
    dtype: str  # the written adapter's safetensors dtype: F32 | BF16 | F16

    @property
    def scale(self) -> float:
        return self.alpha / self.rank


@dataclass(frozen=True)
class Sequence_:
    """One row of a forward call: prompt ++ response; the loss reads the response positions."""

    prompt_ids: Sequence[int]
    response_ids: Sequence[int]


def resolve_dtype(name: str, device: torch.device) -> torch.dtype:
    """`auto`: bf16 on a GPU that has it (the base weights only; LoRA and the optimizer stay fp32), fp32 elsewhere."""
    if name == "fp32":
        return torch.float32
    if name == "bf16":
        return torch.bfloat16
    if name == "auto":
        return torch.bfloat16 if device.type == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
    raise ValueError(f"unknown dtype {name!r} (fp32, bf16 or auto)")


class Policy:
    def __init__(self, model_dir: str, lora: LoraSettings, *, device: torch.device, dtype: torch.dtype,
                 gradient_checkpointing: bool = False, model: torch.nn.Module | None = None, tokenizer=None) -> None:
        self.model_dir = model_dir
        self.lora = lora
        self.device = device
        base = model if model is not None else AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype)
        if tokenizer is None and (Path(model_dir) / "tokenizer_config.json").exists():
            tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.tokenizer = tokenizer
        base.to(device)
        for p in base.parameters():
            p.requires_grad_(False)
        config = LoraConfig(r=lora.rank, lora_alpha=lora.alpha, target_modules=list(lora.targets), lora_dropout=0.0,
                            bias="none", use_rslora=False, use_dora=False, task_type="CAUSAL_LM")
        # autocast_adapter_dtype (peft's default) keeps the LoRA factors in fp32 under a bf16 base.
        self.model = get_peft_model(base, config)
        self.model.eval()  # no dropout anywhere: the objective is deterministic
        if gradient_checkpointing:
            base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            # transformers checkpoints only in training mode: train mode with every dropout at 0 keeps it deterministic.
            self.model.train()
            for module in self.model.modules():
                if isinstance(module, torch.nn.Dropout):
                    module.p = 0.0
            if hasattr(base.config, "attention_dropout"):
                base.config.attention_dropout = 0.0
        self.causal_lm = self.model.get_base_model()
        self.vocab_size = int(self.causal_lm.get_output_embeddings().weight.shape[0])
        self.max_positions = getattr(self.causal_lm.config, "max_position_embeddings", None)
        # Stable order: the optimizer's state and the checkpoints index parameters by position.
        self.named_lora = sorted(((n, p) for n, p in self.model.named_parameters() if p.requires_grad), key=lambda x: x[0])
        if not self.named_lora:
            raise ValueError(f"no LoRA parameter: none of {list(lora.targets)} is in {model_dir}")

    @property
    def parameters(self) -> list[torch.nn.Parameter]:
        return [p for _, p in self.named_lora]

    def fresh_adapter(self, seed: int) -> None:
        """PEFT's default LoRA init, seeded: A kaiming-uniform (a = √5), B = 0, so a fresh adapter is the base."""
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_lora:
                if ".lora_A." in name:
                    # kaiming_uniform_(a=√5) on [r, in]: bound = √(6 / ((1 + a²) · fan_in)) = 1/√fan_in.
                    bound = 1.0 / math.sqrt(p.shape[1])
                    p.copy_((torch.rand(p.shape, generator=g, dtype=torch.float64) * 2 - 1).mul_(bound).to(p.dtype))
                else:
                    p.zero_()

    # ---- prompts

    def chat_ids(self, messages: list[dict[str, str]]) -> list[int]:
        """The model's own chat template with the generation prompt (what the engine generated with)."""
        if self.tokenizer is None or not getattr(self.tokenizer, "chat_template", None):
            raise ValueError(f"{self.model_dir} has no tokenizer with a chat template; give promptIds in the samples")
        out = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True)
        return list(out["input_ids"])

    def end_of_turn_id(self) -> int:
        if self.tokenizer is None or self.tokenizer.eos_token_id is None:
            raise ValueError(f"{self.model_dir} has no end-of-turn token")
        return int(self.tokenizer.eos_token_id)

    # ---- log-probs

    def response_logprobs(self, rows: Sequence[Sequence_], temperature: float, *, adapter: bool) -> list[torch.Tensor]:
        """Per row, [n, V] float32 log_softmax(logits / T) at the positions predicting each response token.
        One right-padded forward call; the LM head runs on response positions only (memory: n·V, not T·V)."""
        lengths = [len(r.prompt_ids) + len(r.response_ids) for r in rows]
        width = max(lengths)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, : lengths[i]] = torch.tensor(list(r.prompt_ids) + list(r.response_ids), dtype=torch.long)
            mask[i, : lengths[i]] = 1
        ids, mask = ids.to(self.device), mask.to(self.device)
        decoder = self.causal_lm.get_decoder()
        head = self.causal_lm.get_output_embeddings()

        def run() -> list[torch.Tensor]:
            hidden = decoder(input_ids=ids, attention_mask=mask).last_hidden_state
            rows_idx = torch.cat([torch.full((len(r.response_ids),), i, dtype=torch.long) for i, r in enumerate(rows)])
            cols_idx = torch.cat([torch.arange(len(r.prompt_ids) - 1, len(r.prompt_ids) - 1 + len(r.response_ids)) for r in rows])
            picked = hidden[rows_idx.to(self.device), cols_idx.to(self.device)]
            if picked.dtype == torch.float32:
                logits = head(picked)
            else:  # a bf16 base: the vocabulary projection and the softmax in fp32, as the engine's log-probs
                logits = torch.nn.functional.linear(picked.float(), head.weight.float(), None if head.bias is None else head.bias.float())
            logits = logits / temperature
            logp = torch.log_softmax(logits, dim=-1)
            return list(torch.split(logp, [len(r.response_ids) for r in rows]))

        if adapter:
            return run()
        with torch.no_grad(), self.model.disable_adapter():
            return [t.detach() for t in run()]
