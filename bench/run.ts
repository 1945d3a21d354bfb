/**
 * `pnpm bench [name…] [--quick]`: runs every `bench/*.bench.ts` (or the named ones) and prints
 * Markdown tables; the report is also written to `bench/results/latest.md`.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchRun, BenchSection } from './types.js';

const folder = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick') || process.env.CTXMEM_BENCH_QUICK === '1';
const names = args.filter((arg) => !arg.startsWith('--'));

function renderSection(section: BenchSection): string {
  const lines = [`## ${section.title}`, ''];
  const first = section.rows[0];
  if (first) {
    const keys = Object.keys(first);
    lines.push(`| ${keys.join(' | ')} |`, `| ${keys.map(() => '---').join(' | ')} |`);
    for (const row of section.rows)
      lines.push(`| ${keys.map((key) => String(row[key] ?? '')).join(' | ')} |`);
  }
  for (const note of section.notes ?? []) lines.push('', note);
  return lines.join('\n');
}

const files = readdirSync(folder)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => names.length === 0 || names.some((name) => file.startsWith(name)))
  .sort();
const report: string[] = [
  `# ctxmem benchmarks`,
  '',
  `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}${quick ? ' (quick)' : ''}`,
];
for (const file of files) {
  const module = (await import(pathToFileURL(`${folder}${file}`).href)) as { run: BenchRun };
  process.stderr.write(`bench: ${file}\n`);
  for (const section of await module.run({ quick })) {
    const text = renderSection(section);
    console.log(`\n${text}`);
    report.push('', text);
  }
}
mkdirSync(`${folder}results`, { recursive: true });
writeFileSync(`${folder}results/latest.md`, `${report.join('\n')}\n`);
