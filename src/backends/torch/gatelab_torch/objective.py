"""The objective of docs/design.md, The objective (objectiveSchema in trainerProtocol.ts), per valid response token:

  PG  = -min(ρA, clip(ρ, 1-clipLow, 1+clipHigh)·A),  ρ = exp(clamp(logπ(y) - old, ±logRatioClamp)), A = reward
  OPD = Σ over the old top-K v of -min(ρ_v·A_v, clip(ρ_v)·A_v),
        A_v = clamp(teacher_v - old_v, ±opdAdvantageClamp) · softmax_K(old)_v        (samples with a teacher)
  KL  = Σ_v π(v)(logπ(v) - base(v)) over the whole vocabulary (exact)              (klCoef > 0)

The caller sums these over a batch and divides by the batch's valid tokens. `old` is the
samples' recorded log-probs (`rollout`) or the policy's own at the start of the step
(`actor`: logπ detached, so ρ = 1 in value and the gradient is the policy gradient)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .policy import TokenStats


@dataclass(frozen=True)
class Objective:
    temperature: float = 1.0
    clip_low: float = 0.2
    clip_high: float = 0.28
    log_ratio_clamp: float = 20.0
    w_rl: float = 1.0
    w_opd: float = 1.0
    kl_coef: float = 0.0
    opd_advantage_clamp: float = 1.0
    old_logprobs: str = "actor"

    @staticmethod
    def from_params(p: dict) -> "Objective":
        if p.get("entropyCoef", 0) != 0:
            # Fail closed: a configured term this trainer cannot apply is refused, never ignored.
            raise ValueError(f"the torch trainer has no entropy term; entropyCoef is {p['entropyCoef']}")
        return Objective(
            temperature=float(p.get("temperature", 1.0)),
            clip_low=float(p.get("clipLow", 0.2)),
            clip_high=float(p.get("clipHigh", 0.28)),
            log_ratio_clamp=float(p.get("logRatioClamp", 20.0)),
            w_rl=float(p.get("wRl", 1.0)),
            w_opd=float(p.get("wOpd", 1.0)),
            kl_coef=float(p.get("klCoef", 0.0)),
            opd_advantage_clamp=float(p.get("opdAdvantageClamp", 1.0)),
            old_logprobs=str(p.get("oldLogprobs", "actor")),
        )


def clipped_surrogate(logp: torch.Tensor, old: torch.Tensor, adv: torch.Tensor | float, o: Objective) -> torch.Tensor:
    ratio = torch.exp(torch.clamp(logp - old, -o.log_ratio_clamp, o.log_ratio_clamp))
    return -torch.minimum(ratio * adv, torch.clamp(ratio, 1.0 - o.clip_low, 1.0 + o.clip_high) * adv)


@dataclass
class TermSums:
    pg: torch.Tensor
    opd: torch.Tensor
    kl: torch.Tensor


def sample_terms(
    stats: TokenStats,
    *,
    valid: list[bool],
    reward: float,
    old: list[float],
    old_top: list[list[float]],
    teacher_top: torch.Tensor | None,
    o: Objective,
) -> TermSums:
    """Sums over one sample's valid positions. stats: the policy's log-probs at the sampled and the top-K ids (with
    grad) and, when the KL term is on, its per-position KL to the base; teacher_top: [n, K] or None (no OPD)."""
    lp_y, lp_top = stats.sampled, stats.top
    dev = lp_y.device
    keep = torch.tensor(valid, dtype=torch.bool, device=dev)
    if o.old_logprobs == "actor":
        old_y, old_k = lp_y.detach(), lp_top.detach()
    else:
        old_y = torch.tensor(old, dtype=lp_y.dtype, device=dev)
        old_k = torch.tensor(old_top, dtype=lp_y.dtype, device=dev)
    pg = clipped_surrogate(lp_y, old_y, reward, o)[keep].sum()
    zero = lp_y.new_zeros(())
    opd = zero
    if teacher_top is not None:
        weight = torch.softmax(old_k, dim=-1)
        adv = torch.clamp(teacher_top.to(lp_y.dtype) - old_k, -o.opd_advantage_clamp, o.opd_advantage_clamp) * weight
        opd = clipped_surrogate(lp_top, old_k, adv, o).sum(-1)[keep].sum()
    kl = stats.kl[keep].sum() if stats.kl is not None else zero
    return TermSums(pg=pg, opd=opd, kl=kl)
