import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SCREENSHOT_DIR = fileURLToPath(new URL('./screenshots/', import.meta.url));
export const FIXTURE_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const REFERENCE_DIR = fileURLToPath(new URL('../assets/reference/2026-09-14-qwen3.5-9b-gated/', import.meta.url));
export const REFERENCE_ID = 'reef-2026-09-14-qwen3.5-9b-gated';
