import { readFileSync } from 'node:fs';
import { UsageError } from './errors';
import { standardBase64 } from './mapping';

/**
 * A Firebase project's password hash parameters (console → Authentication → Users → ⋮ →
 * "Password hash parameters"), read from the text the console shows
 * (`hash_config { algorithm: SCRYPT, base64_signer_key: …, base64_salt_separator: …, rounds: 8,
 * mem_cost: 14 }`) or from the same keys as JSON (bare or under `hash_config`).
 */
export interface FirebaseHashConfig {
  readonly signerKey: string;
  readonly saltSeparator: string;
  readonly rounds: number;
  readonly memCost: number;
}

const KEYS = ['algorithm', 'base64_signer_key', 'base64_salt_separator', 'rounds', 'mem_cost'] as const;

/** `key: value` lines of the console's text (values are bare, a trailing comma optional). */
function fromConsoleText(text: string): Record<string, unknown> {
  const body = /hash_config\s*\{([\s\S]*)\}/.exec(text)?.[1] ?? text;
  const fields: Record<string, unknown> = {};
  for (const m of body.matchAll(/([a-z0-9_]+)\s*:\s*([^,\n}]+)/gi)) fields[m[1].toLowerCase()] = m[2].trim().replace(/^"(.*)"$/, '$1');
  return fields;
}

export function parseHashConfig(text: string, file = 'the hash config'): FirebaseHashConfig {
  let fields: Record<string, unknown>;
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const json = JSON.parse(trimmed) as Record<string, unknown>;
      fields = (json.hash_config ?? json) as Record<string, unknown>;
    } catch {
      throw new UsageError(`${file} is not valid JSON.`);
    }
  } else {
    fields = fromConsoleText(trimmed);
  }
  const missing = KEYS.filter((k) => fields[k] === undefined || fields[k] === '');
  if (missing.length > 0) throw new UsageError(`${file} has no ${missing.join(', ')}: copy the whole hash_config block the Firebase console shows.`);
  if (String(fields.algorithm).toUpperCase() !== 'SCRYPT') {
    throw new UsageError(`${file} says algorithm ${String(fields.algorithm)}: only Firebase's SCRYPT hashes are exported by auth:export.`);
  }
  const signerKey = standardBase64(String(fields.base64_signer_key));
  const saltSeparator = standardBase64(String(fields.base64_salt_separator));
  if (signerKey === undefined) throw new UsageError(`base64_signer_key in ${file} is not base64.`);
  if (saltSeparator === undefined) throw new UsageError(`base64_salt_separator in ${file} is not base64.`);
  const rounds = Number(fields.rounds);
  const memCost = Number(fields.mem_cost);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 8) throw new UsageError(`rounds in ${file} must be an integer from 1 to 8.`);
  if (!Number.isInteger(memCost) || memCost < 1 || memCost > 14) throw new UsageError(`mem_cost in ${file} must be an integer from 1 to 14.`);
  return { signerKey, saltSeparator, rounds, memCost };
}

export function readHashConfig(path: string): FirebaseHashConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --hash-config ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}.`);
  }
  return parseHashConfig(text, path);
}
