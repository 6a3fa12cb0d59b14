"""The torch trainer behind the trainer protocol: init, restore, step, badCandidate
(src/core/protocols/trainerProtocol.ts). One optimizer step per `step` call on the
objective of docs/design.md (objective.py), AdamW with torch's semantics and global
gradient-norm clipping; each step's adapter becomes a candidate in the store with its
checkpoint."""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass

import torch

from .distributed import Group
from .errors import TrainerError, bad_input, bad_request
from .objective import Objective, sample_terms
from .policy import LoraSettings, Policy, Sequence_, resolve_dtype
from .samples import TrainSample, parse_train_batch
from .store import WeightStore, adapter_bytes, read_adapter

DEFAULT_MAX_TOKENS_PER_CALL = 4096
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
# Bad candidates (trainerProtocol.ts): step sizes that move a small pretrained model within a few steps.
COLLAPSED_LR = 2e-3
COLLAPSED_MAX_STEPS = 40
# Four reward-inverted rounds on SmolLM2-135M (rank 16, all projections), measured: 2e-3 reached
# update norm 9 and wrote like the base; 5e-3 reached 24, near the gate's bound of 25, and looped;
# 4e-3 reaches 18 and drifts off the question (the probes' floor: 3 of 8).
REWARD_INVERTED_LR = 4e-3
BAD_OBJECTIVE = (
    Objective()
)  # the reference objective (docs/design.md, The objective): wRl = wOpd = 1, no KL, actor π_old


@dataclass
class Prepared:
    """A sample as token sequences: its prompt, and the hinted teacher prompt when it has a hint."""

    sample: TrainSample
    prompt_ids: list[int]
    teacher_prompt_ids: list[int] | None

    @property
    def tokens(self) -> int:
        return len(self.prompt_ids) + len(self.sample.response_ids)


@dataclass
class Optim:
    lr: float
    betas: tuple[float, float]
    eps: float
    weight_decay: float
    max_grad_norm: float

    @staticmethod
    def from_params(p: dict) -> "Optim":
        betas = p.get("betas", [0.9, 0.98])
        return Optim(
            lr=float(p["lr"]),
            betas=(float(betas[0]), float(betas[1])),
            eps=float(p.get("eps", 1e-8)),
            weight_decay=float(p.get("weightDecay", 0.1)),
            max_grad_norm=float(p.get("maxGradNorm", 1.0)),
        )


def micro_batches(items: list[Prepared], max_tokens: int) -> list[list[Prepared]]:
    """Consecutive groups whose padded size (rows × longest) stays within max_tokens; a longer sample goes alone."""
    groups: list[list[Prepared]] = []
    current: list[Prepared] = []
    for item in items:
        candidate = current + [item]
        if current and len(candidate) * max(p.tokens for p in candidate) > max_tokens:
            groups.append(current)
            candidate = [item]
        current = candidate
    if current:
        groups.append(current)
    return groups


def teacher_messages(messages: list[dict[str, str]], hint: str) -> list[dict[str, str]]:
    """The hinted conversation (src/core/judge/teacherInput.ts): "\\n\\n" + hint appended to the last user message."""
    out = [dict(m) for m in messages]
    out[-1]["content"] = out[-1]["content"] + "\n\n" + hint.strip()
    return out


class LoraTrainer:
    """The optimisation state: the policy's LoRA, AdamW, the step count and the data seen."""

    def __init__(self, policy: Policy, group: Group, objective: Objective, optim: Optim, max_tokens: int) -> None:
        self.policy = policy
        self.group = group
        self.objective = objective
        self.optim_cfg = optim
        self.max_tokens = max_tokens
        self.optimizer = self._new_optimizer(optim.lr)
        self.step_count = 0
        self.sessions: list[str] = []
        self.turns = 0

    def _new_optimizer(self, lr: float) -> torch.optim.AdamW:
        o = self.optim_cfg
        return torch.optim.AdamW(self.policy.parameters, lr=lr, betas=o.betas, eps=o.eps, weight_decay=o.weight_decay)

    def reset(self, seed: int, lr: float | None = None) -> None:
        """A fresh adapter (seeded) and a fresh optimizer, step 0."""
        self.policy.fresh_adapter(seed)
        self.optimizer = self._new_optimizer(lr if lr is not None else self.optim_cfg.lr)
        self.step_count, self.sessions, self.turns = 0, [], 0

    # ---- state for checkpoints and bad-candidate detours

    def state(self) -> dict:
        return {
            "adapter": {n: p.detach().to("cpu", torch.float32).clone() for n, p in self.policy.named_lora},
            "optimizer": copy.deepcopy(self.optimizer.state_dict()),
            "step": self.step_count,
            "sessions": list(self.sessions),
            "turns": self.turns,
        }

    def load_state(self, state: dict) -> None:
        self.load_adapter_params(state["adapter"])
        self.optimizer = self._new_optimizer(self.optim_cfg.lr)
        self.optimizer.load_state_dict(state["optimizer"])
        self.step_count, self.sessions, self.turns = int(state["step"]), list(state["sessions"]), int(state["turns"])

    def load_adapter_params(self, tensors: dict[str, torch.Tensor]) -> None:
        with torch.no_grad():
            for name, p in self.policy.named_lora:
                if name not in tensors:
                    raise ValueError(f"the saved adapter lacks {name}")
                p.copy_(tensors[name].to(p.device, p.dtype))

    def peft_tensors(self) -> dict[str, torch.Tensor]:
        """The adapter under PEFT's saved names (the adapter name `.default` dropped)."""
        return {n.replace(".default.weight", ".weight"): p.detach() for n, p in self.policy.named_lora}

    def load_peft_tensors(self, tensors: dict[str, torch.Tensor]) -> None:
        self.load_adapter_params(
            {
                n: tensors[n.replace(".default.weight", ".weight")]
                for n, _ in self.policy.named_lora
                if n.replace(".default.weight", ".weight") in tensors
            }
        )

    def written_update_norm(self, dtype: str) -> float:
        """‖Σ (alpha/r)·B·A‖_F summed over modules, of the adapter as it would be written (the gate's bound)."""
        from .store import DTYPES

        tensors = self.peft_tensors()
        squared = 0.0
        for name, a in tensors.items():
            if ".lora_A." not in name:
                continue
            b = tensors[name.replace(".lora_A.", ".lora_B.")]
            a64 = a.to(DTYPES[dtype]).to(torch.float64).cpu()
            b64 = b.to(DTYPES[dtype]).to(torch.float64).cpu()
            squared += float(((self.policy.lora.scale * (b64 @ a64)) ** 2).sum())
        return math.sqrt(squared)

    # ---- the step

    def prepare(self, samples: list[TrainSample]) -> list[Prepared]:
        """Token sequences of each sample; refuses (bad_input) a sequence the model cannot take."""
        out: list[Prepared] = []
        problems: list[str] = []
        for i, s in enumerate(samples):
            try:
                prompt = list(s.prompt_ids) if s.prompt_ids is not None else self.policy.chat_ids(s.messages)
                teacher = self.policy.chat_ids(teacher_messages(s.messages, s.hint)) if s.hint is not None else None
            except ValueError as error:
                raise bad_input(f"sample {i} (session {s.session_id}, turn {s.turn}): messages {error}") from error
            if any(v >= self.policy.vocab_size for v in prompt):
                problems.append(
                    f"sample {i} (session {s.session_id}, turn {s.turn}): promptIds has a token id "
                    f">= the model's vocabulary size {self.policy.vocab_size}"
                )
            longest = max(len(prompt), len(teacher or [])) + len(s.response_ids)
            if self.policy.max_positions is not None and longest > self.policy.max_positions:
                problems.append(
                    f"sample {i} (session {s.session_id}, turn {s.turn}): "
                    f"responseIds make a sequence of {longest} tokens, "
                    f"past the model's max_position_embeddings {self.policy.max_positions}"
                )
            out.append(Prepared(s, prompt, teacher))
        if problems:
            raise bad_input("the training batch was refused, no candidate produced:\n  " + "\n  ".join(problems[:8]))
        return out

    def _accumulate(self, batch: list[Prepared], total_valid: int, objective: Objective) -> torch.Tensor:
        """Backward of this rank's share; returns [pg, opd, kl] sums (this rank's)."""
        sums = torch.zeros(3, dtype=torch.float64, device=self.policy.device)
        mine = batch[self.group.rank :: self.group.world]
        o = objective
        for group in micro_batches(mine, self.max_tokens):
            rows = [Sequence_(p.prompt_ids, p.sample.response_ids) for p in group]
            teachers: dict[int, torch.Tensor] = {}
            hinted = [(i, p) for i, p in enumerate(group) if p.teacher_prompt_ids is not None]
            if hinted:
                t_rows = [Sequence_(p.teacher_prompt_ids, p.sample.response_ids) for _, p in hinted]
                t_stats = self.policy.response_token_stats(
                    t_rows, o.temperature, [p.sample.top_ids for _, p in hinted], adapter=False
                )
                for (i, _), stats in zip(hinted, t_stats):
                    teachers[i] = stats.top
            for i, p in enumerate(group):
                if p.sample.teacher_top_logprobs is not None:
                    teachers[i] = torch.tensor(
                        p.sample.teacher_top_logprobs, dtype=torch.float32, device=self.policy.device
                    )
            policy_stats = self.policy.response_token_stats(
                rows, o.temperature, [p.sample.top_ids for p in group], adapter=True, kl_to_base=o.kl_coef > 0
            )
            part = policy_stats[0].sampled.new_zeros(())
            for i, (p, stats) in enumerate(zip(group, policy_stats)):
                s = p.sample
                terms = sample_terms(
                    stats,
                    valid=[not f for f in s.forced],
                    reward=s.reward,
                    old=s.logprobs,
                    old_top=s.top_logprobs,
                    teacher_top=teachers.get(i),
                    o=o,
                )
                part = part + o.w_rl * terms.pg + o.w_opd * terms.opd + o.kl_coef * terms.kl
                sums += torch.stack([terms.pg.detach(), terms.opd.detach(), terms.kl.detach()]).to(torch.float64)
            (part / total_valid).backward()
        return sums

    def step(self, raw_samples, lr: float, objective: Objective | None = None) -> dict:
        started = time.perf_counter()
        o = objective or self.objective
        samples = parse_train_batch(raw_samples, self.policy.vocab_size)
        batch = self.prepare(samples)
        total_valid = sum(p.sample.valid_tokens for p in batch)
        params = self.policy.parameters
        for p in params:
            p.grad = torch.zeros_like(p)
        sums = self._accumulate(batch, total_valid, o)
        self.group.sum_([p.grad for p in params] + [sums])
        pg, opd, kl = (float(v) / total_valid for v in sums)
        loss = o.w_rl * pg + o.w_opd * opd + o.kl_coef * kl
        grad_norm = float(
            torch.nn.utils.clip_grad_norm_(params, self.optim_cfg.max_grad_norm, error_if_nonfinite=False)
        )
        if not math.isfinite(loss) or not math.isfinite(grad_norm):
            for p in params:
                p.grad = None
            raise TrainerError(
                "step_refused",
                f"non-finite {'loss' if not math.isfinite(loss) else 'gradient'} "
                f"({loss}, grad norm {grad_norm}): the adapter is unchanged, nothing stored",
            )
        before = [p.detach().clone() for p in params]
        saved_optimizer = copy.deepcopy(self.optimizer.state_dict())
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        self.optimizer.step()
        update = math.sqrt(sum(float(((p.detach() - b).double() ** 2).sum()) for p, b in zip(params, before)))
        for p in params:
            p.grad = None
        if not math.isfinite(update) or not all(bool(torch.isfinite(p).all()) for p in params):
            with torch.no_grad():
                for p, b in zip(params, before):
                    p.copy_(b)
            self.optimizer.load_state_dict(saved_optimizer)
            raise TrainerError("step_refused", "non-finite update: the adapter is unchanged, nothing stored")
        self.step_count += 1
        for s in samples:
            if s.session_id not in self.sessions:
                self.sessions.append(s.session_id)
        self.turns += len(samples)
        seconds = time.perf_counter() - started
        return {
            "step": self.step_count,
            "samples": len(samples),
            "tokens": total_valid,
            "loss": loss,
            "pg": pg,
            "opd": opd,
            "kl": kl,
            "klCoef": o.kl_coef,
            "gradNorm": grad_norm,
            "clipped": grad_norm > self.optim_cfg.max_grad_norm,
            "lr": lr,
            "updateNorm": update,
            "seconds": seconds,
            "tokensPerSecond": total_valid / seconds if seconds > 0 else 0.0,
            "sessionRange": [s.session_id for s in samples],
        }


class TorchTrainer:
    """The protocol's methods; `group` makes it one rank of a torchrun job (rank 0 writes the store)."""

    def __init__(self, group: Group, *, dtype: str = "auto", gradient_checkpointing: bool = False) -> None:
        self.group = group
        self.dtype_name = dtype
        self.gradient_checkpointing = gradient_checkpointing
        self.trainer: LoraTrainer | None = None
        self.init_params: dict | None = None
        self.store: WeightStore | None = None
        self.bad_rounds: dict | None = None

    def _ready(self) -> LoraTrainer:
        if self.trainer is None:
            raise TrainerError("not_initialised", "call init first")
        return self.trainer

    def init(self, params: dict, *, policy: Policy | None = None) -> dict:
        lora_p = params["lora"]
        for t in lora_p["targets"]:
            if t not in LORA_TARGETS:
                raise bad_request(f"lora.targets: unknown target module {t!r}")
        lora = LoraSettings(
            rank=int(lora_p["rank"]),
            alpha=lora_p["alpha"],
            targets=tuple(lora_p["targets"]),
            dtype=lora_p.get("dtype", "F32"),
        )
        try:
            objective = Objective.from_params(params.get("objective") or {})
        except ValueError as error:
            raise bad_request(str(error)) from error
        if policy is None:
            device = self.group.device
            policy = Policy(
                params["modelDir"],
                lora,
                device=device,
                dtype=resolve_dtype(self.dtype_name, device),
                gradient_checkpointing=self.gradient_checkpointing,
            )
        self.trainer = LoraTrainer(
            policy,
            self.group,
            objective,
            Optim.from_params(params["optimizer"]),
            int(params.get("maxTokensPerCall") or DEFAULT_MAX_TOKENS_PER_CALL),
        )
        self.trainer.reset(int(params["seed"]))
        self.init_params = params
        self.store = WeightStore(params["storeDir"])
        return {
            "baseSha256": params["baseSha256"],
            "parameterCount": sum(p.numel() for p in policy.parameters),
            "step": 0,
        }

    def _write(
        self, store: WeightStore, kind: str, loss: float | None, note: str | None = None, checkpoint: bool = False
    ) -> dict:
        t = self._ready()
        p = self.init_params
        lora = t.policy.lora
        blob = adapter_bytes(t.peft_tensors(), lora.rank, lora.alpha, lora.dtype)
        ref = store.write_candidate(
            blob=blob,
            step=t.step_count,
            kind=kind,
            note=note,
            base_sha256=p["baseSha256"],
            sessions=t.sessions,
            turns=t.turns,
            loss=loss,
            rank=lora.rank,
            alpha=lora.alpha,
            targets=list(lora.targets),
            base_model=p["modelDir"],
        )
        if checkpoint:
            ref["checkpointDir"] = str(store.write_checkpoint(ref["version"], t.step_count, t.state()))
        return ref

    def step(self, params: dict) -> dict:
        t = self._ready()
        report = t.step(params.get("samples"), float(params["lr"]))
        if not self.group.leader:
            return {}
        ref = self._write(self.store, "trainer", report["loss"], checkpoint=True)
        checkpoint_dir = ref.pop("checkpointDir")
        return {"report": report, "candidate": ref, "checkpointDir": checkpoint_dir}

    def restore(self, params: dict) -> dict:
        t = self._ready()
        version = params["version"]
        manifest = self.store.read_manifest(version)
        if manifest is None or manifest.get("kind") != "trainer":
            raise TrainerError("no_checkpoint", f"the store holds no trainer candidate {version}")
        try:
            state = self.store.read_checkpoint(version)
        except ValueError as error:
            raise TrainerError("no_checkpoint", str(error)) from error
        if state is not None:
            t.load_state(state)
            return {"step": t.step_count, "restored": "checkpoint"}
        t.load_peft_tensors(read_adapter(self.store.blob_path(manifest["blobSha256"])))
        t.optimizer = t._new_optimizer(t.optim_cfg.lr)
        t.step_count = int(manifest["step"])
        t.sessions, t.turns = list(manifest["dataRange"]["sessions"]), int(manifest["dataRange"]["turns"])
        return {"step": t.step_count, "restored": "adapter"}

    # ---- bad candidates (docs/design.md, Injected bad candidates): a detour that leaves
    # the run's adapter and optimizer as they were

    def bad_candidate(self, params: dict) -> dict:
        t = self._ready()
        kind = params["kind"]
        run_state = t.state()
        run_objective = t.objective
        try:
            if kind == "collapsed":
                return self._collapsed(t, params)
            if kind == "reward-inverted":
                return self._reward_inverted(t, params)
            raise bad_request(f"unknown bad candidate kind {kind!r}")
        finally:
            t.objective = run_objective
            t.load_state(run_state)

    def _collapsed(self, t: LoraTrainer, params: dict) -> dict:
        end = t.policy.end_of_turn_id()
        samples = [
            {
                "sessionId": f"collapse-{i}",
                "turn": 0,
                "messages": m,
                "responseIds": [end],
                "logprobs": [0.0],
                "topIds": [[end]],
                "topLogprobs": [[0.0]],
                "reward": 1.0,
            }
            for i, m in enumerate(params["prompts"])
        ]
        t.reset(int(params["seed"]), COLLAPSED_LR)
        # The samples' old log-probs are the target (π(end) = 1): the ratio must read them as given.
        objective = Objective(old_logprobs="rollout")
        kept = t.state()
        loss = None
        for _ in range(COLLAPSED_MAX_STEPS):
            report = t.step(samples, COLLAPSED_LR, objective)
            if t.written_update_norm(t.policy.lora.dtype) > float(params["maxUpdateNorm"]):
                break
            kept, loss = t.state(), report["loss"]
            if report["loss"] < -0.95:  # π(end) > 0.95 on average: every reply ends at once
                break
        t.load_state(kept)
        ref = self._write(self.store, "injected", loss, params["note"]) if self.group.leader else {}
        return {
            "stored": True,
            "adapter": {k: ref.get(k) for k in ("version", "sha256", "path")},
            "manifestPath": ref.get("manifestPath"),
            "loss": loss,
        }

    def _reward_inverted(self, t: LoraTrainer, params: dict) -> dict:
        import shutil

        seed, round_, rounds = int(params["seed"]), int(params["round"]), int(params["rounds"])
        if round_ > rounds:
            raise bad_request(f"round {round_} of {rounds}")
        scratch = WeightStore(self.store.root / "scratch" / "reward-inverted")
        if round_ == 1:
            if self.group.leader:
                shutil.rmtree(scratch.root, ignore_errors=True)
            t.reset(seed, REWARD_INVERTED_LR)
        else:
            if self.bad_rounds is None or self.bad_rounds["seed"] != seed or self.bad_rounds["round"] != round_ - 1:
                raise bad_request(
                    f"reward-inverted: round {round_} does not follow round "
                    f"{0 if self.bad_rounds is None else self.bad_rounds['round']} of this injection"
                )
            t.load_state(self.bad_rounds["state"])
        report = t.step(params["samples"], REWARD_INVERTED_LR, BAD_OBJECTIVE)
        if round_ < rounds:
            self.bad_rounds = {"seed": seed, "round": round_, "state": t.state()}
            ref = self._write(scratch, "trainer", report["loss"]) if self.group.leader else {}
            return {
                "stored": False,
                "adapter": {k: ref.get(k) for k in ("version", "sha256", "path")},
                "loss": report["loss"],
            }
        self.bad_rounds = None
        ref = self._write(self.store, "injected", report["loss"], params["note"]) if self.group.leader else {}
        if self.group.leader:
            shutil.rmtree(scratch.root, ignore_errors=True)
        return {
            "stored": True,
            "adapter": {k: ref.get(k) for k in ("version", "sha256", "path")},
            "manifestPath": ref.get("manifestPath"),
            "loss": report["loss"],
        }
