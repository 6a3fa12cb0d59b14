"""The worker through its protocol (JSON lines, a real process): candidates in PEFT's
format through the weight store, checkpoints and restore, bad input, torchrun."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from conftest import tiny_init, tiny_model, tiny_samples
from worker_client import WorkerClient

LR = 0.01


@pytest.fixture
def worker():
    client = WorkerClient()
    yield client
    client.close()


def test_a_step_writes_a_complete_candidate_and_checkpoint(worker, golden, tiny_dir, tmp_path):
    init = worker.result("init", tiny_init(tiny_dir, tmp_path))
    assert init["step"] == 0 and init["baseSha256"] == "ab" * 32 and init["parameterCount"] > 0
    out = worker.result("step", {"samples": tiny_samples(golden), "lr": LR})
    report, cand = out["report"], out["candidate"]
    assert report["step"] == 1 and report["samples"] == 3 and report["tokens"] == 15
    assert report["klCoef"] == 0.05 and report["kl"] == pytest.approx(0.0, abs=1e-12)  # a fresh adapter is the base
    assert math.isfinite(report["loss"]) and report["updateNorm"] > 0
    assert report["sessionRange"] == ["golden-0", "golden-1", "golden-2"]
    blob = Path(cand["path"]).read_bytes()
    import hashlib

    assert hashlib.sha256(blob).hexdigest() == cand["sha256"]
    assert cand["version"] == f"v1-{cand['sha256'][:8]}"
    manifest = json.loads(Path(cand["manifestPath"]).read_text())
    assert set(manifest) == {
        "version",
        "kind",
        "blobSha256",
        "blobBytes",
        "baseModelSha256",
        "step",
        "dataRange",
        "loss",
        "lora",
        "createdAt",
    }
    assert (
        manifest["kind"] == "trainer"
        and manifest["blobBytes"] == len(blob)
        and manifest["baseModelSha256"] == "ab" * 32
    )
    assert manifest["dataRange"] == {"sessions": ["golden-0", "golden-1", "golden-2"], "turns": 3}
    assert manifest["lora"] == {
        "rank": 4,
        "alpha": 8,
        "targets": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    }
    tensors = load_file(cand["path"])
    assert len(tensors) == 2 * 7 * 2
    assert tensors["base_model.model.model.layers.1.self_attn.k_proj.lora_A.weight"].shape == (4, 16)
    assert tensors["base_model.model.model.layers.0.mlp.down_proj.lora_B.weight"].shape == (16, 4)
    checkpoint = json.loads((Path(out["checkpointDir"]) / "checkpoint.json").read_text())
    assert (
        checkpoint["version"] == cand["version"]
        and checkpoint["step"] == 1
        and checkpoint["format"] == "gatelab-torch-trainer/1"
    )
    assert not list(tmp_path.rglob("*.tmp"))


def test_peft_loads_the_candidate_and_it_is_the_trained_adapter(worker, golden, tiny_dir, tmp_path):
    from peft import PeftModel

    worker.result("init", tiny_init(tiny_dir, tmp_path / "store"))
    cand = worker.result("step", {"samples": tiny_samples(golden), "lr": LR})["candidate"]
    # An engine's view of the version: the folder's adapter_config.json beside the blob as adapter_model.safetensors.
    folder = tmp_path / "peft"
    folder.mkdir()
    shutil.copy(Path(cand["manifestPath"]).parent / "adapter_config.json", folder / "adapter_config.json")
    shutil.copy(cand["path"], folder / "adapter_model.safetensors")
    model = PeftModel.from_pretrained(tiny_model(golden), str(folder))
    written = load_file(cand["path"])
    loaded = {n.replace(".default.weight", ".weight"): p for n, p in model.named_parameters() if "lora_" in n}
    assert set(loaded) == set(written)
    for name, tensor in written.items():
        assert torch.equal(loaded[name].detach(), tensor), name
    ids = torch.tensor([[18, 12, 20, 22, 13, 9, 17, 21]])
    with torch.no_grad():
        with_adapter = model(ids).logits
        with model.disable_adapter():
            base = model(ids).logits
    assert not torch.allclose(with_adapter, base)  # the step moved the policy, and PEFT applies it


def test_restore_from_a_checkpoint_continues_exactly(golden, tiny_dir, tmp_path):
    samples = tiny_samples(golden)
    a = WorkerClient()
    try:
        a.result("init", tiny_init(tiny_dir, tmp_path))
        first = a.result("step", {"samples": samples, "lr": LR})["candidate"]
        second = a.result("step", {"samples": samples, "lr": LR / 2})["candidate"]
    finally:
        a.close()
    b = WorkerClient()
    try:
        b.result("init", tiny_init(tiny_dir, tmp_path))
        assert b.result("restore", {"version": first["version"]}) == {"step": 1, "restored": "checkpoint"}
        again = b.result("step", {"samples": samples, "lr": LR / 2})
        missing = b.call("restore", {"version": "v9-00000000"})
    finally:
        b.close()
    assert again["report"]["step"] == 2
    # Same adapter, same moments, same step: the resumed step 2 is bit-identical to the uninterrupted one.
    assert again["candidate"]["sha256"] == second["sha256"]
    manifest = json.loads(Path(again["candidate"]["manifestPath"]).read_text())
    assert manifest["dataRange"]["turns"] == 6
    assert missing["error"]["code"] == "no_checkpoint"


def test_bad_samples_are_refused_naming_sample_and_field(worker, golden, tiny_dir, tmp_path):
    assert worker.call("step", {"samples": tiny_samples(golden), "lr": LR})["error"]["code"] == "not_initialised"
    worker.result("init", tiny_init(tiny_dir, tmp_path))
    samples = tiny_samples(golden)
    samples[1]["logprobs"] = samples[1]["logprobs"][:-1]
    samples[2]["topIds"][1] = [1, 2]
    error = worker.call("step", {"samples": samples, "lr": LR})["error"]
    assert error["code"] == "bad_input"
    assert "sample 1 (session golden-1, turn 0): logprobs has 4 entries but responseIds has 5" in error["message"]
    assert "sample 2 (session golden-2, turn 0): topIds.1 has 2 ids; position 0 has K = 4" in error["message"]
    nan = tiny_samples(golden)
    nan[0]["responseIds"][0] = 999
    error = worker.call("step", {"samples": nan, "lr": LR})["error"]
    assert error["code"] == "bad_input" and "sample 0 (session golden-0, turn 0): responseIds" in error["message"]
    assert not (tmp_path / "versions").exists()  # nothing stored


FLOAT32_UNIT_ROUNDOFF = 2.0**-24


def float32_order_tolerance(config: dict, samples: list[dict]) -> float:
    """How far two float32 computations that differ only in the order of their sums may drift apart, relative.

    A sum of n terms in float32 is off by at most γ_n = n·u / (1 − n·u) of the sum of its magnitudes
    (u = 2^-24; Higham, Accuracy and Stability of Numerical Algorithms, §3.1). A response token's log-prob
    passes a chain of such sums, and their γ add: per layer the RMS norm over H, q/k/v over H, attention over
    at most P positions, o over H, the MLP's gate/up over H and down over I; then the final norm over H, the
    logits over H and the log-softmax over V; and the batch totals over T tokens. Each run is within γ of the
    exact value, so the two within 2γ; a gradient passes the chain twice (forward, then backward): 4γ.
    Adam's step m̂/(√v̂ + ε) is invariant to a common relative error of the gradient, so after two steps
    the weights and the next step's reports carry at most twice that: 8γ, used for everything below.
    For the golden tiny Llama that is 1.3e-4; the worst drift seen (an AMD EPYC) was 1.1e-5."""
    h, i, v, layers = (
        config["hidden_size"],
        config["intermediate_size"],
        config["vocab_size"],
        config["num_hidden_layers"],
    )
    tokens = sum(len(s["responseIds"]) for s in samples)
    positions = max(len(s["promptIds"]) + len(s["responseIds"]) for s in samples)
    n = layers * (h + h + positions + h + h + i) + h + h + v + tokens
    gamma = n * FLOAT32_UNIT_ROUNDOFF / (1 - n * FLOAT32_UNIT_ROUNDOFF)
    return 8 * gamma


def test_torchrun_two_processes_take_the_single_process_step(golden, tiny_dir, tmp_path):
    """gloo on the CPU: rank 0 trains samples 0 and 2, rank 1 sample 1; the summed gradient is the whole batch's.
    Only the order of float32 sums differs, so the tolerance is derived from that (float32_order_tolerance);
    a sample lost or counted twice moves these values by tens of percent."""
    samples = tiny_samples(golden)
    rel = float32_order_tolerance(json.loads((tiny_dir / "config.json").read_text()), samples)
    results = {}
    for nproc in (1, 2):
        client = WorkerClient(nproc=nproc)
        try:
            client.result("init", tiny_init(tiny_dir, tmp_path / f"store-{nproc}"))
            results[nproc] = [client.result("step", {"samples": samples, "lr": LR}) for _ in range(2)]
        finally:
            client.close()
    for one, two in zip(results[1], results[2]):
        for key in ("loss", "pg", "opd", "kl", "gradNorm", "updateNorm"):
            assert two["report"][key] == pytest.approx(one["report"][key], rel=rel, abs=1e-7), key
        a, b = load_file(one["candidate"]["path"]), load_file(two["candidate"]["path"])
        for name in a:
            err = float((a[name] - b[name]).norm() / a[name].norm().clamp_min(1e-30))
            assert err < rel, (name, err)


def test_reward_inverted_rounds_leave_the_run_adapter_alone(golden, tiny_dir, tmp_path):
    samples = tiny_samples(golden)
    plain = WorkerClient()
    try:
        plain.result("init", tiny_init(tiny_dir, tmp_path / "plain"))
        want = plain.result("step", {"samples": samples, "lr": LR})["candidate"]["sha256"]
    finally:
        plain.close()
    client = WorkerClient()
    try:
        client.result("init", tiny_init(tiny_dir, tmp_path / "run"))
        bad = {"kind": "reward-inverted", "seed": 5, "rounds": 2, "samples": samples, "note": "reward-inverted (test)"}
        first = client.result("badCandidate", {**bad, "round": 1})
        assert first["stored"] is False and Path(first["adapter"]["path"]).exists()
        assert "scratch" in first["adapter"]["path"]
        skipped = client.call("badCandidate", {**bad, "round": 3, "rounds": 3})
        assert skipped["error"]["code"] == "bad_request"
        client.result("badCandidate", {**bad, "round": 1})
        last = client.result("badCandidate", {**bad, "round": 2})
        assert last["stored"] is True
        manifest = json.loads(Path(last["manifestPath"]).read_text())
        assert manifest["kind"] == "injected" and manifest["note"] == "reward-inverted (test)" and manifest["step"] == 2
        assert not (tmp_path / "run" / "scratch" / "reward-inverted").exists()
        # The run's own adapter and optimizer were put back: its next step is the step it would have taken.
        got = client.result("step", {"samples": samples, "lr": LR})["candidate"]["sha256"]
    finally:
        client.close()
    assert got == want
