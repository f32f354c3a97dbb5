/** Structured JSON logger: one line per event, the request id on every line. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/**
 * Field names whose values are secrets. Callers never pass them; this list is a second line of
 * defence so that a mistake writes `[redacted]` instead of a password, hash, code or key.
 */
const SECRET_FIELD = /pass(word)?|hash|secret|key|token|code|deviceid|authorization|salt/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] = SECRET_FIELD.test(k) && !/^(statusCode|errorCode)$/.test(k) ? '[redacted]' : v;
  }
  return out;
}

/** Creates a logger that writes JSON lines to `write` (stdout by default). */
export function createLogger(base: Record<string, unknown> = {}, write: (line: string) => void = (line) => process.stdout.write(line + '\n')): Logger {
  const emit = (level: string, message: string, fields?: Record<string, unknown>): void => {
    write(JSON.stringify({ time: new Date().toISOString(), level, message, ...base, ...redact(fields ?? {}) }));
  };
  return {
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...base, ...redact(fields) }, write),
  };
}

/** Describes an error for a log line without its message's user data: name, code, stack frames. */
export function describeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { errorName: err.name, ...(typeof code === 'string' ? { errorCode: code } : {}), stack: err.stack?.split('\n').slice(1, 6).join('\n') };
  }
  return { errorName: typeof err };
}
