/**
 * What the operator commands (`serve`, `admin`) need from the CLI around them: output streams,
 * the environment, and an exit code to set. The CLI's context satisfies it; without one, the real
 * process is used.
 */
export interface CommandHost {
  io: {
    stdout: { write(text: string): unknown };
    stderr: { write(text: string): unknown };
    env: Record<string, string | undefined>;
  };
  exitCode: number;
}

export function processHost(): CommandHost {
  return {
    io: { stdout: process.stdout, stderr: process.stderr, env: process.env },
    get exitCode() {
      return typeof process.exitCode === 'number' ? process.exitCode : 0;
    },
    set exitCode(code: number) {
      process.exitCode = code;
    },
  };
}
