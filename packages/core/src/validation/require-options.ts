import { InvalidArgumentError } from '../errors/index.js';

/** A short description of a value for an error message; never its content. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/**
 * The options object of a public function, checked before anything reads from it: a missing
 * or `null` options object (or one that is not an object) is an `InvalidArgumentError` naming
 * the function, not a `TypeError` from a destructuring. Optional options default in the
 * signature (`options: XOptions = {}`), so only `null` and non-objects reach the error there.
 * Each option named in `required` is then checked as `requireOption` checks it, in that order.
 */
export function requireOptions<Options extends object>(
  options: Options | null | undefined,
  functionName: string,
  required: { readonly [Key in keyof Options]?: RequiredOption } = {},
): Options {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError({
      message: `${functionName}: options must be an object, got ${options === undefined ? 'nothing' : describeValue(options)}`,
      argument: 'options',
    });
  }
  for (const [option, expected] of Object.entries(required) as Array<[string, RequiredOption]>) {
    requireOption(functionName, option, (options as Record<string, unknown>)[option], expected);
  }
  return options;
}

/** A token counter option: what most functions that count take. */
export const TOKEN_COUNTER_OPTION: RequiredOption = {
  expected: 'a TokenCounter, e.g. createTokenCounter()',
  methods: ['countText'],
};

/** What a required option must be, for `requireOption`. */
export interface RequiredOption {
  /** What it takes, said in the message, e.g. `'a TokenCounter, e.g. createTokenCounter()'`. */
  expected: string;
  /** The JavaScript type it must have. @default 'object' */
  type?: 'object' | 'function' | 'string' | 'number';
  /** Methods an object must have (e.g. `['countText']` for a counter). @default [] */
  methods?: readonly string[];
}

/**
 * Checks one required option of a public function: a missing one is an `InvalidArgumentError`
 * `"<function>: options.<option> is required (<expected>)"`, one of the wrong kind
 * `"<function>: options.<option> must be <expected>, got <kind>"`.
 */
export function requireOption(
  functionName: string,
  option: string,
  value: unknown,
  { expected, type = 'object', methods = [] }: RequiredOption,
): void {
  if (value === undefined || value === null) {
    throw new InvalidArgumentError({
      message: `${functionName}: options.${option} is required (${expected})`,
      argument: option,
    });
  }
  const target = value as Record<string, unknown>;
  const rightType =
    type === 'object'
      ? typeof value === 'object' || typeof value === 'function'
      : typeof value === type;
  if (!rightType || methods.some((method) => typeof target[method] !== 'function')) {
    throw new InvalidArgumentError({
      message: `${functionName}: options.${option} must be ${expected}, got ${describeValue(value)}`,
      argument: option,
    });
  }
}
