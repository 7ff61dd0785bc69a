// `npm run test:python`: the Python SDK's checks and tests.
//   1. the generated files are in step: vesta/_generated.py with openapi/openapi.json,
//      vesta/_async_resources.py with vesta/_resources.py;
//   2. pyright strict (python/pyrightconfig.json, no rule turned off) on the package, its tests
//      and scripts; `pyright --verifytypes vesta` at >= 98 %; every ```python example of
//      docs/python.md type-checked in strict mode;
//   3. the unittest suite against a real server (python3), then the clients' suite
//      (tests/test_clients.py: sync and async, proxies, TLS) on Python 3.9 and on the newest
//      python3.X on PATH.
// Needs python3 (3.9+) with venv; under CI=true a missing interpreter is a failure, locally a loud skip.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pyright = path.join(root, 'node_modules/pyright/index.js');
const python = process.env.PYTHON ?? 'python3';
const ci = process.env.CI === 'true';

/** @param {string} why */
function missing(why) {
  if (ci) {
    process.stderr.write(`test:python FAILED: ${why}; CI must run the Python SDK tests (see .ci/run)\n`);
    process.exit(1);
  }
  process.stderr.write(`\n*** test:python: ${why}. Install it to run these Python SDK tests. ***\n\n`);
}

/** @param {string} exe */
function version(exe) {
  const r = spawnSync(exe, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

const main = version(python);
if (main === null || Number(main.split('.')[1]) < 9) {
  missing(`${python} (3.9+) was not found`);
  process.exit(0);
}

const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
/** @param {string} cmd @param {string[]} args @param {string} cwd @param {Record<string, string>} [extra] */
const run = (cmd, args, cwd, extra = {}) => {
  process.stdout.write(`$ ${[cmd, ...args].join(' ')}\n`);
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: { ...env, ...extra } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run(python, ['python/scripts/generate_types.py', '--check'], root);
run(python, ['python/scripts/generate_async.py', '--check'], root);
run(process.execPath, [pyright, '-p', 'python'], root);

// Type completeness of the public API, as users' type checkers see it.
process.stdout.write('$ pyright --verifytypes vesta --ignoreexternal\n');
const verify = spawnSync(
  process.execPath,
  [pyright, '--verifytypes', 'vesta', '--ignoreexternal', '--outputjson'],
  {
    cwd: path.join(root, 'python'),
    encoding: 'utf8',
    env: { ...env, PYTHONPATH: path.join(root, 'python') },
  },
);
const completeness = JSON.parse(verify.stdout).typeCompleteness?.completenessScore ?? 0;
process.stdout.write(`type completeness: ${(completeness * 100).toFixed(1)} %\n`);
if (completeness < 0.98) {
  process.stderr.write('test:python FAILED: pyright --verifytypes vesta is under 98 %\n');
  process.exit(1);
}

// Every example of docs/python.md, type-checked as a user's strict project would (torch and
// diffusers, which the diffusers example imports, from the small stubs in python/tests/doc_stubs).
const docs = readFileSync(path.join(root, 'docs/python.md'), 'utf8');
const blocks = [...docs.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vesta-doc-examples-'));
try {
  blocks.forEach((code, i) => writeFileSync(path.join(tmp, `example_${i + 1}.py`), code));
  cpSync(path.join(root, 'python/tests/doc_stubs'), path.join(tmp, 'typings'), { recursive: true });
  writeFileSync(
    path.join(tmp, 'pyrightconfig.json'),
    JSON.stringify({
      typeCheckingMode: 'strict',
      pythonVersion: '3.9',
      extraPaths: [path.join(root, 'python')],
      stubPath: 'typings',
    }),
  );
  process.stdout.write(`docs/python.md: ${blocks.length} examples\n`);
  run(process.execPath, [pyright, '-p', tmp], tmp);
  // And the other way round: an option that does not exist is a pyright error, not only a TypeError.
  writeFileSync(
    path.join(tmp, 'example_bad_option.py'),
    'import vesta\n\nvesta.Vesta().bench.get("bench_1", retries=3)\n',
  );
  const bad = spawnSync(process.execPath, [pyright, '-p', tmp], { cwd: tmp, encoding: 'utf8' });
  if (bad.status === 0 || !bad.stdout.includes('No parameter named "retries"')) {
    process.stderr.write(
      `test:python FAILED: pyright did not catch an unknown keyword option\n${bad.stdout}\n`,
    );
    process.exit(1);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

run(
  python,
  ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', ...process.argv.slice(2)],
  path.join(root, 'python'),
);

// The supported interpreters: the oldest (3.9) and the newest on the machine run the clients'
// suite and the packaging tests. Looked up on PATH (python3.X) and among pyenv's versions.
if (process.argv.length <= 2) {
  const pyenv = process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv');
  const installed = existsSync(path.join(pyenv, 'versions'))
    ? readdirSync(path.join(pyenv, 'versions'))
        .filter((v) => /^3\.\d+\.\d+$/.test(v))
        .map((v) => path.join(pyenv, 'versions', v, 'bin', `python${v.split('.').slice(0, 2).join('.')}`))
    : [];
  const minor = (/** @type {string} */ v) => Number(v.split('.')[1]);
  const found = [...[9, 10, 11, 12, 13, 14, 15].map((m) => `python3.${m}`), ...installed]
    .map((exe) => ({ exe, v: version(exe) }))
    .filter((c) => c.v !== null && minor(/** @type {string} */ (c.v)) >= 9);
  const oldest = found.find((c) => c.v === '3.9');
  const newest = [...found].sort(
    (a, b) => minor(/** @type {string} */ (b.v)) - minor(/** @type {string} */ (a.v)),
  )[0];
  if (!oldest) missing('Python 3.9 was not found (PATH or pyenv)');
  for (const c of [oldest, newest]) {
    if (!c || c.v === main) continue; // none, or already run above
    process.stdout.write(`Python ${c.v}: ${c.exe}\n`);
    const wheel =
      'tests.test_contract.Contract.test_the_offline_build_makes_a_compressed_wheel_with_full_metadata';
    run(c.exe, ['-m', 'unittest', 'tests.test_clients', wheel], path.join(root, 'python'));
  }
}
