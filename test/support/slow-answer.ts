import type { ServerResponse } from 'node:http';

/**
 * Waits `ms` before a stub answers, as a slow server does, but no longer than its client waits:
 * once the client has given up (the connection closed) there is no one to answer, and the timer is
 * cleared. A late answer's timer left running held the jest worker past its last test ("A worker
 * process has failed to exit gracefully and has been force exited") when it was the worker's last file.
 */
export function slowAnswer(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    res.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
