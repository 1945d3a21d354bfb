/**
 * Type-checks every fenced TypeScript block (```ts or ```typescript) of every README against the
 * packages' sources (tsconfig.json maps `@ctxmem/*` to `packages/*\/src`), so a snippet a reader
 * copies compiles. A block that is deliberately partial is skipped: mark it ```ts partial, or put
 * `<!-- snippet: partial -->` on the line above its fence.
 *
 *   pnpm check:docs            check every README
 *   pnpm check:docs README.md  check some
 *
 * Each block is compiled as its own module placed beside its README (so `zod` or `ai` resolve from
 * that package's dependencies), all in one TypeScript program; nothing is written to disk.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface Snippet {
  /** The README, relative to the repository. */
  readme: string;
  /** 1-based line of the block's first code line in the README. */
  line: number;
  code: string;
  partial: boolean;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/;
const PARTIAL_COMMENT = /^<!--\s*snippet:\s*partial\b.*-->\s*$/;

/** The fenced blocks of a Markdown text whose language is ts or typescript. */
export function extractSnippets(markdown: string, readme: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index]!);
    if (!open) continue;
    const [, indent, fence, language = '', rest = ''] = open;
    const close = lines.findIndex(
      (line, position) =>
        position > index &&
        line.trimStart().startsWith(fence!) &&
        line.trim().replace(/[`~]/g, '') === '',
    );
    const end = close === -1 ? lines.length : close;
    if (/^(ts|typescript)$/i.test(language)) {
      const previous = lines
        .slice(0, index)
        .reverse()
        .find((line) => line.trim() !== '');
      snippets.push({
        readme,
        line: index + 2,
        code: lines
          .slice(index + 1, end)
          .map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line))
          .join('\n'),
        partial: /\bpartial\b/.test(rest) || PARTIAL_COMMENT.test(previous?.trim() ?? ''),
      });
    }
    index = end;
  }
  return snippets;
}

/** The repository's READMEs: the root one, and each package's and example's. */
export function findReadmes(root = repositoryRoot): string[] {
  const readmes = ['README.md'];
  for (const folder of ['packages', 'examples']) {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const readme = join(folder, entry.name, 'README.md');
      if (entry.isDirectory() && existsSync(join(root, readme))) readmes.push(readme);
    }
  }
  return readmes;
}

export interface SnippetProblem {
  snippet: Snippet;
  /** `README.md:63:7` */
  location: string;
  message: string;
}

/** Compiles the snippets in one program and returns every error, mapped back to README lines. */
export function checkSnippets(
  snippets: readonly Snippet[],
  root = repositoryRoot,
): SnippetProblem[] {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`cannot read ${configPath}`);
  const options: ts.CompilerOptions = { ...config.options, noEmit: true };

  // Virtual files beside each README; `export {}` makes each a module, so top-level names of
  // different snippets do not collide.
  const virtual = new Map<string, Snippet>();
  snippets.forEach((snippet, index) => {
    const file = join(root, dirname(snippet.readme), `__readme_snippet_${index}.ts`);
    virtual.set(file, snippet);
  });
  const sourceOf = (snippet: Snippet) => `${snippet.code}\nexport {};\n`;
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const snippet = virtual.get(resolve(fileName));
    return snippet
      ? ts.createSourceFile(fileName, sourceOf(snippet), languageVersion, true)
      : getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(resolve(fileName)) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => {
    const snippet = virtual.get(resolve(fileName));
    return snippet ? sourceOf(snippet) : readFile(fileName);
  };

  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const problems: SnippetProblem[] = [];
  for (const [file, snippet] of virtual) {
    const sourceFile = program.getSourceFile(file);
    if (!sourceFile) continue;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ];
    for (const diagnostic of diagnostics) {
      const { line, character } = sourceFile.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      problems.push({
        snippet,
        location: `${snippet.readme}:${snippet.line + line}:${character + 1}`,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      });
    }
  }
  return problems;
}

function main(argv: readonly string[]): number {
  const started = performance.now();
  const readmes =
    argv.length > 0 ? argv.map((path) => relative(repositoryRoot, resolve(path))) : findReadmes();
  const all = readmes.flatMap((readme) =>
    extractSnippets(readFileSync(join(repositoryRoot, readme), 'utf8'), readme),
  );
  const checked = all.filter((snippet) => !snippet.partial);
  const problems = checkSnippets(checked);
  for (const problem of problems) console.error(`${problem.location}: ${problem.message}`);
  const failed = new Set(problems.map((problem) => problem.snippet)).size;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `doc snippets: ${checked.length - failed} of ${checked.length} TypeScript blocks in ${readmes.length} READMEs compile` +
      ` (${all.length - checked.length} marked partial, skipped) in ${seconds} s`,
  );
  return problems.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
