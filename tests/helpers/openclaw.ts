// OpenClaw, the real agent, driven headless against a GateLab gateway: the
// install `npm run setup:openclaw` makes (Node 24 and the pinned `openclaw`
// package under $GATELAB_HOME/openclaw), the config GateLab writes for it, and
// one agent turn as `openclaw agent --local --session-id S --message M --json`.
// Each turn is its own process; OpenClaw keeps the session's transcript in its
// state folder and sends the whole conversation on every turn.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { gatelabHome } from '../../src/processes/python/pythonEnvironment';

export type OpenClawInstall = { node: string; cli: string; version: string };

const installSchema = z.object({ node: z.string(), cli: z.string(), version: z.string() });

/** The install setup:openclaw made, or why there is none (its own marker's reason when it gave up). */
export function findOpenClaw(env: Readonly<Record<string, string | undefined>> = process.env): OpenClawInstall | { missing: string } {
  const folder = path.join(gatelabHome(env), 'openclaw');
  const unavailable = path.join(folder, 'UNAVAILABLE');
  if (existsSync(unavailable)) return { missing: `OpenClaw cannot be installed here: ${readFileSync(unavailable, 'utf8').trim()}` };
  const manifest = path.join(folder, 'openclaw.json');
  if (!existsSync(manifest)) return { missing: `OpenClaw is not installed (no ${manifest}; \`npm run setup:openclaw\` makes it)` };
  const install = installSchema.parse(JSON.parse(readFileSync(manifest, 'utf8')));
  if (!existsSync(install.node) || !existsSync(install.cli))
    return { missing: `OpenClaw's install at ${folder} is incomplete (run \`npm run setup:openclaw -- --force\`)` };
  return install;
}

export type OpenClawGateway = {
  /** The gateway's base URL, without `/v1`. */
  baseUrl: string;
  /** The gateway's per-launch bearer token: OpenClaw sends it as the provider's API key. */
  token: string;
  /** The model id the gateway serves (`gatelab-policy`). */
  model: string;
};

/** The provider id OpenClaw knows the gateway by; its model ref is `gatelab/<model>`. */
export const OPENCLAW_PROVIDER = 'gatelab';

/**
 * OpenClaw's config for a GateLab gateway on a small model. The served context
 * (8,192 tokens for SmolLM2) cannot hold OpenClaw's default prompt (~10,000
 * tokens of system prompt, 12 tools), so the prompt is cut to what an agent
 * turn needs (about 1,850 tokens, measured): the `minimal` tool profile (only
 * the three tool-search tools remain), no skills, and no workspace bootstrap
 * files (none written, none injected).
 */
export type OpenClawOptions = {
  contextWindow: number;
  maxTokens: number;
  /** OpenClaw's `tools` section instead of the `minimal` profile (e.g. one tool, confined to the workspace). */
  tools?: Record<string, unknown>;
  /** The agent's workspace folder (its file tools' root); OpenClaw's default otherwise. */
  workspace?: string;
};

export function openClawConfig(gateway: OpenClawGateway, options: OpenClawOptions): unknown {
  return {
    models: {
      // Only GateLab's provider: OpenClaw must never fall back to a hosted model.
      mode: 'replace',
      providers: {
        [OPENCLAW_PROVIDER]: {
          baseUrl: `${gateway.baseUrl}/v1`,
          apiKey: gateway.token,
          api: 'openai-completions',
          // A reply on a CPU engine can take minutes.
          timeoutSeconds: 1800,
          models: [
            {
              id: gateway.model,
              name: gateway.model,
              reasoning: false,
              input: ['text'],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: options.contextWindow,
              maxTokens: options.maxTokens,
              // X-Session-Affinity (and session_id, x-client-request-id) on every
              // request: `<session-id>:<n>`, n counting the session's compactions,
              // which is how live mode tells OpenClaw's sessions apart.
              compat: { sendSessionAffinityHeaders: true },
            },
          ],
        },
      },
    },
    tools: options.tools ?? { profile: 'minimal' },
    update: { checkOnStart: false },
    agents: {
      defaults: {
        model: { primary: `${OPENCLAW_PROVIDER}/${gateway.model}` },
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
        timeoutSeconds: 1800,
        skills: [],
        skipBootstrap: true,
        contextInjection: 'never',
      },
    },
  };
}

export type OpenClawAgent = { stateDir: string; configPath: string; install: OpenClawInstall };

/** Writes the config into `stateDir` (OpenClaw's whole state lives there). */
export function prepareOpenClaw(
  install: OpenClawInstall,
  stateDir: string,
  gateway: OpenClawGateway,
  options: OpenClawOptions = { contextWindow: 8192, maxTokens: 64 },
): OpenClawAgent {
  mkdirSync(stateDir, { recursive: true });
  const configPath = path.join(stateDir, 'openclaw.json');
  writeFileSync(configPath, `${JSON.stringify(openClawConfig(gateway, options), null, 2)}\n`, { mode: 0o600 });
  return { stateDir, configPath, install };
}

const turnOutputSchema = z.object({
  payloads: z.array(z.object({ text: z.string().nullable().optional() })),
  meta: z
    .object({
      agentMeta: z.object({ sessionId: z.string(), provider: z.string(), model: z.string() }).loose(),
    })
    .loose(),
});

export type OpenClawTurn = z.infer<typeof turnOutputSchema> & { seconds: number };

/**
 * One agent turn: `openclaw agent --local` runs the agent in this process (no
 * OpenClaw gateway daemon) and prints the result as JSON on stdout. Rejects
 * with OpenClaw's output when it fails or runs past `timeoutMs`.
 */
export function runOpenClawTurn(agent: OpenClawAgent, sessionId: string, message: string, timeoutMs: number): Promise<OpenClawTurn> {
  const args = [agent.install.cli, 'agent', '--local', '--session-id', sessionId, '--message', message, '--json'];
  // Only the host's basics, not this process's environment: OpenClaw's entry
  // point does nothing at all when it sees vitest's variables (VITEST), and no
  // other setting of the caller's should reach the agent.
  const basics = ['PATH', 'HOME', 'USER', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ'].flatMap((name) => {
    const value = process.env[name];
    return value === undefined ? [] : [[name, value] as const];
  });
  const env = {
    ...Object.fromEntries(basics),
    OPENCLAW_CONFIG_PATH: agent.configPath,
    OPENCLAW_STATE_DIR: agent.stateDir,
    // No downloads of OpenClaw's helper binaries: the test runs offline.
    OPENCLAW_OFFLINE: '1',
  };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(agent.install.node, args, { cwd: agent.stateDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) {
        reject(
          new Error(
            `openclaw agent exited ${code ?? signal} after ${seconds.toFixed(0)} s\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-8000)}`,
          ),
        );
        return;
      }
      try {
        resolve({ ...turnOutputSchema.parse(JSON.parse(stdout)), seconds });
      } catch (error) {
        reject(new Error(`openclaw agent printed no result JSON (${String(error)})\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-8000)}`));
      }
    });
  });
}
