import { main } from '../lib/migrate/cli';

/**
 * The migration command (SPEC §17): `npm run migrate -- <source> <file> [options]`, and, bundled
 * into `dist/cli/migrate.js` by the build, the package's `auth-core-migrate` bin. Ctrl-C stops
 * after the requests in flight and writes the report; a second Ctrl-C quits at once.
 */
const controller = new AbortController();
process.on('SIGINT', () => {
  if (controller.signal.aborted) process.exit(1);
  process.stderr.write('\nstopping after the requests in flight (Ctrl-C again quits at once)…\n');
  controller.abort();
});

main(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  tty: process.stderr.isTTY === true,
  signal: controller.signal,
  // npm runs scripts in the package's folder: paths are the operator's, from where they typed it.
  cwd: process.env.INIT_CWD ?? process.cwd(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`migration stopped by an unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
