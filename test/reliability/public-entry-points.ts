/**
 * Finds the public functions of every package for `public-entry-points.test.ts`: the `exports`
 * subpaths of each `packages/*\/package.json` (but `./test`), their TypeScript sources, and the
 * parameters of each exported function and class, read with the TypeScript checker.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** What a parameter takes, as far as the sweep needs to know to pass something plausible. */
type ParameterKind = (
  | { kind: 'string'; example: string }
  | { kind: 'number' | 'boolean' | 'array' | 'function' | 'object' | 'unknown' }
) & {
  /** Takes options: destructured in place, named `options`, or typed `…Options` or `…Input`. */
  options: boolean;
  optional: boolean;
};

export interface ExportedFunction {
  name: string;
  /** A class: called with `new`. */
  construct: boolean;
  /** The parameters of each signature (overloads give several). */
  signatures: ParameterKind[][];
}

export interface EntryPoint {
  /** The import specifier, e.g. `@ctxmem/core/driver-kit`. */
  specifier: string;
  /** The TypeScript source behind it. */
  file: string;
  exports: ExportedFunction[];
}

export interface PlannedCall {
  label: string;
  args: unknown[];
}

function sourceOf(packageFolder: string, target: unknown): string {
  const path =
    typeof target === 'string' ? target : ((target as Record<string, string>).default ?? '');
  const match = /^\.\/dist\/(.+)\.js$/.exec(path);
  if (!match) throw new Error(`cannot map export target ${path} to a source file`);
  return join(packageFolder, 'src', `${match[1]}.ts`);
}

/** A type named `…Options` or `…Input` (possibly generic, possibly one member of an intersection). */
const OPTIONS_TYPE = /(^|[&|]\s*)(\w+\.)?\w*(Options|Input)\b/;

function isOptionsParameter(declaration: ts.Declaration | undefined): boolean {
  if (!declaration || !ts.isParameter(declaration)) return false;
  if (ts.isObjectBindingPattern(declaration.name)) return true;
  if (ts.isIdentifier(declaration.name) && declaration.name.text === 'options') return true;
  return declaration.type !== undefined && OPTIONS_TYPE.test(declaration.type.getText());
}

function parameterOf(
  checker: ts.TypeChecker,
  parameter: ts.Symbol,
  location: ts.Node,
): ParameterKind {
  const declaration = parameter.valueDeclaration;
  const optional =
    declaration !== undefined &&
    ts.isParameter(declaration) &&
    (declaration.questionToken !== undefined || declaration.initializer !== undefined);
  return {
    ...kindOf(checker, checker.getTypeOfSymbolAtLocation(parameter, location)),
    options: isOptionsParameter(declaration),
    optional,
  };
}

function kindOf(
  checker: ts.TypeChecker,
  type: ts.Type,
): { kind: 'string'; example: string } | { kind: Exclude<ParameterKind['kind'], 'string'> } {
  const present = checker.getNonNullableType(type);
  const members = present.isUnion() ? present.types : [present];
  const first = members[0] ?? present;
  if (first.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { kind: 'unknown' };
  if (first.isStringLiteral()) return { kind: 'string', example: first.value };
  if (first.flags & ts.TypeFlags.StringLike) return { kind: 'string', example: 'x' };
  if (first.flags & ts.TypeFlags.NumberLike) return { kind: 'number' };
  if (first.flags & ts.TypeFlags.BooleanLike) return { kind: 'boolean' };
  if (checker.isArrayType(first) || checker.isTupleType(first)) return { kind: 'array' };
  if (first.getCallSignatures().length > 0) return { kind: 'function' };
  return { kind: 'object' };
}

function exportedFunction(
  checker: ts.TypeChecker,
  exported: ts.Symbol,
  location: ts.Node,
): ExportedFunction | undefined {
  const symbol =
    exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  if (!(symbol.flags & ts.SymbolFlags.Value)) return undefined;
  const type = checker.getTypeOfSymbolAtLocation(symbol, location);
  const construct = (symbol.flags & ts.SymbolFlags.Class) !== 0;
  const chosen = construct ? type.getConstructSignatures() : type.getCallSignatures();
  if (chosen.length === 0) return undefined;
  return {
    name: exported.name,
    construct,
    signatures: chosen.map((signature) =>
      signature.parameters.map((parameter) => parameterOf(checker, parameter, location)),
    ),
  };
}

/** Every public entry point of every package in `root`, with its functions and classes. */
export function entryPoints(root: string): EntryPoint[] {
  const found: { specifier: string; file: string }[] = [];
  const packages = join(root, 'packages');
  for (const folder of readdirSync(packages).sort()) {
    const manifest = JSON.parse(readFileSync(join(packages, folder, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, unknown>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (subpath === './package.json' || subpath === './test') continue;
      found.push({
        specifier: manifest.name + subpath.slice(1),
        file: sourceOf(join(packages, folder), target),
      });
    }
  }
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram(
    found.map((entry) => entry.file),
    options,
  );
  const checker = program.getTypeChecker();
  return found.map(({ specifier, file }) => {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!source || !module) throw new Error(`cannot read the exports of ${file}`);
    const exports = checker
      .getExportsOfModule(module)
      .map((exported) => exportedFunction(checker, exported, source))
      .filter((exported) => exported !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name));
    return { specifier, file, exports };
  });
}

function plausible(parameter: ParameterKind): { label: string; value: unknown } | undefined {
  switch (parameter.kind) {
    case 'string':
      return { label: JSON.stringify(parameter.example), value: parameter.example };
    case 'number':
      return { label: '1', value: 1 };
    case 'boolean':
      return { label: 'false', value: false };
    case 'array':
      return { label: '[]', value: [] };
    case 'function':
      return { label: '() => undefined', value: () => undefined };
    default:
      // An object that is not options (a store, a message) has no generic plausible value.
      return undefined;
  }
}

/**
 * The calls to make. A function that takes options gets plausible values for the parameters
 * before them, then nothing, `undefined`, `null` and `{}` in their place. One without options is
 * called once with plausible values (when there are some for all its required parameters).
 */
export function planCalls(exported: ExportedFunction): PlannedCall[] {
  const calls = new Map<string, PlannedCall>();
  const add = (values: { label: string; value: unknown }[]) => {
    const label = values.map((entry) => entry.label).join(', ');
    calls.set(label, { label, args: values.map((entry) => entry.value) });
  };
  for (const parameters of exported.signatures) {
    const prefix: { label: string; value: unknown }[] = [];
    let reached = true;
    for (const parameter of parameters) {
      if (parameter.options) {
        add(prefix);
        add([...prefix, { label: 'undefined', value: undefined }]);
        add([...prefix, { label: 'null', value: null }]);
        add([...prefix, { label: '{}', value: {} }]);
        break;
      }
      if (parameter.optional) {
        add(prefix);
        break;
      }
      const value = plausible(parameter);
      if (!value) {
        reached = false;
        break;
      }
      prefix.push(value);
    }
    if (reached && !parameters.some((parameter) => parameter.options || parameter.optional)) {
      add(prefix);
    }
  }
  return [...calls.values()].map((call) => ({
    label: call.label,
    // `{}` and `[]` are made again per call: a function may keep or change what it was given.
    args: call.args.map((value) =>
      Array.isArray(value) ? [] : value && typeof value === 'object' ? {} : value,
    ),
  }));
}
