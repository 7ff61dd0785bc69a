/**
 * `npm run bench:distributed`: the distributed mode's figures (issue #12), in one run so that the
 * ratios compare like with like. Each section is a file in `scripts/bench-distributed/` exporting a
 * `BenchSection`; adding one is one import and one entry below. BENCH_SECTIONS=pickup,… runs only
 * those. PostgreSQL at BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test). Needs a
 * build (`npm run build`). Prints Markdown for docs/benchmarks.md.
 */
import { apiPg } from './bench-distributed/api-pg.js';
import { pickup } from './bench-distributed/pickup.js';
import { s3Upload } from './bench-distributed/s3-upload.js';
import { throughput } from './bench-distributed/throughput.js';
import type { BenchSection } from './bench-distributed/section.js';

const SECTIONS: BenchSection[] = [pickup, throughput, apiPg, s3Upload];

async function main(): Promise<void> {
  const only = process.env.BENCH_SECTIONS?.split(',').map((s) => s.trim());
  const chosen = SECTIONS.filter((s) => !only || only.includes(s.name));
  const out: string[] = [];
  for (const s of chosen) {
    console.error(`bench:distributed: ${s.name}: ${s.title}`);
    out.push(`### ${s.title}\n\n${await s.run()}`);
  }
  console.log(out.join('\n\n'));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
