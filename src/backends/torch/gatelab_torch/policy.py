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
import torch.utils.checkpoint
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


# Response positions whose [positions, vocabulary] logits exist at once (SmolLM2: 256 × 49k × 4 B ≈ 50 MB).
LOGIT_CHUNK_POSITIONS = 256


@dataclass
class TokenStats:
    """What the objective reads at each of a row's n response positions (float32; with grad when the adapter is on)."""

    sampled: torch.Tensor  # [n] log-prob of the sampled token
    top: torch.Tensor  # [n, K] log-probs at the recorded top-K ids
    kl: torch.Tensor | None  # [n] exact KL(policy ‖ base) over the vocabulary, or None


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
    def __init__(
        self,
        model_dir: str,
        lora: LoraSettings,
        *,
        device: torch.device,
        dtype: torch.dtype,
        gradient_checkpointing: bool = False,
        model: torch.nn.Module | None = None,
        tokenizer=None,
    ) -> None:
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
        config = LoraConfig(
            r=lora.rank,
            lora_alpha=lora.alpha,
            target_modules=list(lora.targets),
            lora_dropout=0.0,
            bias="none",
            use_rslora=False,
            use_dora=False,
            task_type="CAUSAL_LM",
        )
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
        self.named_lora = sorted(
            ((n, p) for n, p in self.model.named_parameters() if p.requires_grad), key=lambda x: x[0]
        )
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

    def _response_hidden(self, rows: Sequence[Sequence_]) -> torch.Tensor:
        """[N, H]: the last hidden state at every position that predicts a response token, rows concatenated.
        One right-padded forward call; the graph holds the decoder's activations, never the vocabulary."""
        lengths = [len(r.prompt_ids) + len(r.response_ids) for r in rows]
        width = max(lengths)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, : lengths[i]] = torch.tensor(list(r.prompt_ids) + list(r.response_ids), dtype=torch.long)
            mask[i, : lengths[i]] = 1
        hidden = self.causal_lm.get_decoder()(
            input_ids=ids.to(self.device), attention_mask=mask.to(self.device)
        ).last_hidden_state
        rows_idx = torch.cat([torch.full((len(r.response_ids),), i, dtype=torch.long) for i, r in enumerate(rows)])
        cols_idx = torch.cat(
            [torch.arange(len(r.prompt_ids) - 1, len(r.prompt_ids) - 1 + len(r.response_ids)) for r in rows]
        )
        return hidden[rows_idx.to(self.device), cols_idx.to(self.device)]

    def _logp(self, hidden: torch.Tensor, temperature: float) -> torch.Tensor:
        """[n, V] float32 log_softmax(logits / T); a bf16 base's vocabulary projection runs in fp32,
        as the engine's log-probs."""
        head = self.causal_lm.get_output_embeddings()
        if hidden.dtype == torch.float32:
            logits = head(hidden)
        else:
            logits = torch.nn.functional.linear(
                hidden.float(), head.weight.float(), None if head.bias is None else head.bias.float()
            )
        return torch.log_softmax(logits / temperature, dim=-1)

    def response_logprobs(self, rows: Sequence[Sequence_], temperature: float, *, adapter: bool) -> list[torch.Tensor]:
        """Per row, [n, V] log-probs at the positions predicting each response token (whole distributions: for
        checks on short rows; the trainer uses response_token_stats, whose memory does not grow with V·n)."""
        if adapter:
            logp = self._logp(self._response_hidden(rows), temperature)
        else:
            with torch.no_grad(), self.model.disable_adapter():
                logp = self._logp(self._response_hidden(rows), temperature)
        return list(torch.split(logp, [len(r.response_ids) for r in rows]))

    def response_token_stats(
        self,
        rows: Sequence[Sequence_],
        temperature: float,
        top_ids: Sequence[Sequence[Sequence[int]]],
        *,
        adapter: bool,
        kl_to_base: bool = False,
        chunk: int = LOGIT_CHUNK_POSITIONS,
    ) -> list[TokenStats]:
        """Per row, what the objective reads at each response position: the sampled token's log-prob, the log-probs
        at the given top ids and, with kl_to_base, the exact KL(policy ‖ base) over the vocabulary.

        Memory: the [positions, V] logits exist for `chunk` positions at a time, and with the adapter on each chunk
        is recomputed in the backward pass (activation checkpointing) instead of being kept: a window of 16 turns ×
        400 tokens on a 49k vocabulary would otherwise hold several 1.3 GB tensors for the backward."""
        if adapter:
            hidden = self._response_hidden(rows)
        else:
            with torch.no_grad(), self.model.disable_adapter():
                hidden = self._response_hidden(rows)
        base_hidden = None
        if kl_to_base:
            with torch.no_grad(), self.model.disable_adapter():
                base_hidden = self._response_hidden(rows)
        dev = hidden.device
        sampled_ids = torch.tensor([t for r in rows for t in r.response_ids], dtype=torch.long, device=dev)
        # K is fixed within a sample, not across a batch: pad to the widest (id 0) and cut each row back after.
        widths = [len(row[0]) if len(row) > 0 else 0 for row in top_ids]
        k_max = max(widths, default=0)
        tops = torch.zeros((len(sampled_ids), k_max), dtype=torch.long)
        at = 0
        for row, k in zip(top_ids, widths):
            if k > 0:
                tops[at : at + len(row), :k] = torch.tensor([list(r) for r in row], dtype=torch.long)
            at += len(row)
        tops = tops.to(dev)

        def stats_of(h: torch.Tensor, base_h: torch.Tensor | None, y: torch.Tensor, top: torch.Tensor):
            logp = self._logp(h, temperature)
            kl = (
                (logp.exp() * (logp - self._logp(base_h, temperature))).sum(-1)
                if base_h is not None
                else logp.new_zeros(len(y))
            )
            return logp.gather(1, y[:, None])[:, 0], logp.gather(1, top), kl

        parts = []
        for at in range(0, hidden.shape[0], chunk):
            piece = (
                hidden[at : at + chunk],
                None if base_hidden is None else base_hidden[at : at + chunk],
                sampled_ids[at : at + chunk],
                tops[at : at + chunk],
            )
            if hidden.requires_grad:
                parts.append(torch.utils.checkpoint.checkpoint(stats_of, *piece, use_reentrant=False))
            else:
                with torch.no_grad():
                    parts.append(stats_of(*piece))
        sampled, top, kl = (torch.cat([p[i] for p in parts]) for i in range(3))
        sizes = [len(r.response_ids) for r in rows]
        return [
            TokenStats(sampled=a, top=b[:, :k], kl=c if kl_to_base else None)
            for a, b, c, k in zip(torch.split(sampled, sizes), torch.split(top, sizes), torch.split(kl, sizes), widths)
        ]
