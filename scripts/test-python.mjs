// `npm run test:python`: type-checks the Python SDK with pyright (from npm), checks its generated
// types against openapi/openapi.json, and runs its unittest suite against a real server.
// Needs python3 (3.9+) with venv; under CI=true a missing python3 is a failure, locally a loud skip.
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const python = process.env.PYTHON ?? 'python3';
const probe = spawnSync(python, ['-c', 'import sys; assert sys.version_info >= (3, 9), sys.version'], {
  encoding: 'utf8',
});
if (probe.status !== 0) {
  const why = probe.error
    ? `${python} was not found`
    : `${python} is older than 3.9 (${probe.stderr.trim()})`;
  if (process.env.CI === 'true') {
    process.stderr.write(`test:python FAILED: ${why}; CI must run the Python SDK tests (see .ci/run)\n`);
    process.exit(1);
  }
  process.stderr.write(
    `\n*** test:python SKIPPED: ${why}. Install python3 to run the Python SDK tests. ***\n\n`,
  );
  process.exit(0);
}

const run = (cmd, args, cwd) => {
  process.stdout.write(`$ ${[cmd, ...args].join(' ')}\n`);
  const r = spawnSync(cmd, args, {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run(python, ['python/scripts/generate_types.py', '--check'], root);
run(process.execPath, [path.join(root, 'node_modules/pyright/index.js'), '-p', 'python'], root);
run(
  python,
  ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', ...process.argv.slice(2)],
  path.join(root, 'python'),
);
