// How the lab names weights, defined once: a sha256 is 64 lowercase hex
// digits; a candidate's version id is `v<step>-<first 8 hex of its sha256>`
// (step 0: no trainer step made it, e.g. an injected candidate); what serves
// is `base` or such a version. Pure (zod only), so the renderer may reach it
// through the contract.
import { z } from 'zod';

export const SHA256_PATTERN = /^[0-9a-f]{64}$/;
/** A candidate's version id; group 1 is its step, group 2 the first 8 hex of its sha256. */
export const CANDIDATE_VERSION_PATTERN = /^v(\d+)-([0-9a-f]{8})$/;
/** What can serve: the base, or a candidate's version. */
export const SERVED_VERSION_PATTERN = /^(base|v\d+-[0-9a-f]{8})$/;

export const sha256Schema = z.string().regex(SHA256_PATTERN, 'sha256 must be 64 lowercase hex digits');
export const candidateVersionSchema = z.string().regex(CANDIDATE_VERSION_PATTERN, 'a version id is v<step>-<first 8 hex of sha256>');
export const servedVersionSchema = z.string().regex(SERVED_VERSION_PATTERN, 'a version is base or v<step>-<first 8 hex of sha256>');
