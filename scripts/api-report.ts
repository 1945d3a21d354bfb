/**
 * The public API report: every name each package entry point exports, value or type, one per line
 * in `api/<package>.api.txt`. CI runs `pnpm api:check`, which fails when the code's surface differs
 * from the checked-in report, so a change to the surface shows up in review as a diff of that file.
 * `pnpm api:update` rewrites the reports after a deliberate change.
 *
 * It reads the TypeScript sources with the compiler's own type checker, so no build is needed.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
const update = process.argv.includes('--update');

interface EntryPoint {
  packageName: string;
  subpath: string;
  source: string;
}

function entryPoints(): EntryPoint[] {
  const entries: EntryPoint[] = [];
  for (const folder of readdirSync(join(root, 'packages')).sort()) {
    const manifestPath = join(root, 'packages', folder, 'package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (typeof target !== 'object' || target === null) continue;
      const types = (target as { types?: string }).types;
      if (!types) continue;
      const source = types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts');
      entries.push({
        packageName: manifest.name,
        subpath,
        source: join(root, 'packages', folder, source),
      });
    }
  }
  return entries;
}

function kindOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Variable) return 'const';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Namespace) return 'namespace';
  return 'other';
}

const VALUE_KINDS = new Set(['class', 'function', 'enum', 'const', 'namespace']);

const entries = entryPoints();
const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2023,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};
const program = ts.createProgram(
  entries.map((entry) => entry.source),
  compilerOptions,
);
const checker = program.getTypeChecker();

const reports = new Map<string, string[]>();
for (const entry of entries) {
  const file = program.getSourceFile(entry.source);
  if (!file) throw new Error(`api-report: cannot read ${entry.source}`);
  const moduleSymbol = checker.getSymbolAtLocation(file);
  const exports = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
  const lines = exports
    .map((symbol) => `${symbol.getName()} (${kindOf(symbol, checker)})`)
    .sort((left, right) => left.localeCompare(right, 'en'));
  const values = lines.filter((line) => VALUE_KINDS.has(line.slice(line.lastIndexOf('(') + 1, -1)));
  const name = `${entry.packageName}${entry.subpath === '.' ? '' : entry.subpath.slice(1)}`;
  const report = reports.get(entry.packageName) ?? [];
  report.push(
    `## ${name} — ${values.length} runtime names, ${lines.length - values.length} types`,
    ...lines,
    '',
  );
  reports.set(entry.packageName, report);
}

let differs = false;
for (const [packageName, lines] of reports) {
  const file = join(root, 'api', `${packageName.replace('@ctxmem/', '')}.api.txt`);
  const text = `${lines.join('\n').trimEnd()}\n`;
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {}
  if (current === text) continue;
  if (update) {
    writeFileSync(file, text);
    console.log(`api-report: wrote ${file}`);
  } else {
    differs = true;
    console.error(`api-report: the public API of ${packageName} differs from ${file}`);
  }
}
if (differs) {
  console.error(
    'api-report: review the change, then run `pnpm api:update` and commit the reports (after a merge conflict in api/, just run it again)',
  );
  process.exit(1);
}
if (!update) console.log(`api-report: ${reports.size} packages match their checked-in reports`);
