/**
 * The shape checks of `validateMessages`: one message, its parts and their values, path by path.
 * Hand-written rather than a zod schema because each check also repairs (lone surrogates in text,
 * copy-on-write, so unchanged input comes back as the same objects) and names the exact path in
 * `InvalidMessageError`: a schema would need a transform per text field and a mapping of its
 * issues back to these paths, and would not be shorter.
 */
import type { CtxmemMessageKind, CtxmemMessageMetadata, Message } from '../contracts/index.js';
import { InvalidMessageError } from '../errors/index.js';
import {
  describeEntry,
  describeThrown,
  describeValue,
  type InspectContext,
  inspectJsonValue,
  isBinaryOrUrl,
  isPlainObject,
  isWellFormedText,
  joinPath,
  toWellFormedText,
} from './json-values.js';
import type { MessageRepair } from './validate-messages.js';

export interface ValidationContext extends InspectContext {
  repairs: MessageRepair[];
}

export function fail(path: string, problem: string): never {
  throw new InvalidMessageError({ message: `${path}: ${problem}`, path });
}

/** Copy-on-write editing of one object: unchanged input comes back as the same object. */
export function editable<T extends object>(source: T) {
  let copy: Record<string, unknown> | undefined;
  return {
    set(key: string, value: unknown): void {
      if ((copy ?? (source as Record<string, unknown>))[key] === value) return;
      copy ??= { ...(source as Record<string, unknown>) };
      copy[key] = value;
    },
    result: (): T => (copy ?? source) as T,
  };
}

export function checkText(
  value: unknown,
  path: string,
  context: ValidationContext,
  { nonEmpty = false }: { nonEmpty?: boolean } = {},
): string {
  if (typeof value !== 'string') fail(path, `expected a string, got ${describeValue(value)}`);
  if (nonEmpty && value.length === 0) fail(path, 'must not be empty');
  if (!context.checkText || isWellFormedText(value)) return value;
  if (!context.repair) fail(path, 'string contains a lone surrogate (invalid UTF-16)');
  context.repairs.push({ kind: 'lone-surrogate', path });
  return toWellFormedText(value);
}

function checkProviderOptions(
  value: unknown,
  path: string,
  context: ValidationContext,
  ancestors: readonly object[],
): unknown {
  if (!isPlainObject(value)) fail(path, `expected an object, got ${describeValue(value)}`);
  // The JSON walk first: it reads every value once and names a getter that throws.
  const checked = inspectJsonValue(value, path, context, ancestors);
  for (const [provider, options] of Object.entries(value)) {
    if (options !== undefined && !isPlainObject(options)) {
      fail(joinPath(path, provider), `expected an object, got ${describeValue(options)}`);
    }
  }
  return checked;
}

/** Fields ctxmem does not read are still sent and stored: they must be plain JSON. */
const EXTRA_FIELDS: InspectContext = { checkText: false, repair: false };

/**
 * Checks the fields of `value` not in `known` as JSON: a host's own fields travel with the
 * message into stores and prompts, so a cycle, a BigInt or a function there would fail far from
 * its cause. A getter that throws fails here, at its path. Known fields are left to their checks
 * (a getter of one that throws fails there, at the enclosing path).
 */
function checkExtraFields(
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: string,
  ancestors: readonly object[],
): void {
  // `for…in` allocates no key list; a plain object has no enumerable inherited keys.
  for (const key in value) {
    if (known.has(key)) continue;
    let field: unknown;
    try {
      field = value[key];
    } catch (error) {
      const where = joinPath(path, key);
      throw new InvalidMessageError({
        message: `${where}: reading it threw (${describeThrown(error)})`,
        path: where,
        cause: error,
      });
    }
    if (field !== undefined) inspectJsonValue(field, joinPath(path, key), EXTRA_FIELDS, ancestors);
  }
}

/**
 * `check` with any other error it throws (a getter or proxy trap that throws where ctxmem reads a
 * field) turned into `InvalidMessageError` at `path`.
 */
function readingAt<T>(path: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (InvalidMessageError.isInstance(error)) throw error;
    throw new InvalidMessageError({
      message: `${path}: reading it threw (${describeThrown(error)})`,
      path,
      cause: error,
    });
  }
}

/** Fails for a hole of a sparse messages array (`[a, , b]`), which `map` and `forEach` skip. */
export function requireEntry(list: readonly unknown[], index: number, path: string): void {
  if (!(index in list)) fail(path, `expected a message object, got ${describeEntry(list, index)}`);
}

function checkDataContent(value: unknown, path: string, context: ValidationContext): unknown {
  if (typeof value === 'string') return checkText(value, path, context);
  if (isBinaryOrUrl(value)) return value;
  fail(path, `expected a base64 or URL string, bytes or a URL, got ${describeValue(value)}`);
}

const roles = new Set(['system', 'user', 'assistant', 'tool']);
const ctxmemKinds = new Set<CtxmemMessageKind>([
  'summary',
  'memory-injection',
  'tool-run-record',
  'offload-preview',
  'compressed-result',
  'bootstrap',
]);
const partTypesByRole: Record<string, ReadonlySet<string>> = {
  user: new Set(['text', 'image', 'file']),
  assistant: new Set([
    'text',
    'file',
    'reasoning',
    'custom',
    'tool-call',
    'tool-result',
    'tool-approval-request',
  ]),
  tool: new Set(['tool-result', 'tool-approval-response']),
};
const knownPartTypes = new Set(Object.values(partTypesByRole).flatMap((types) => [...types]));
const fieldSet = (...fields: string[]) => new Set(['type', 'providerOptions', ...fields]);
/** The fields each part type's check reads; the others are checked as JSON. */
const partFields: Record<string, ReadonlySet<string>> = {
  text: fieldSet('text'),
  reasoning: fieldSet('text'),
  image: fieldSet('image', 'mediaType'),
  file: fieldSet('data', 'mediaType', 'filename'),
  'tool-call': fieldSet('toolCallId', 'toolName', 'input', 'providerExecuted'),
  'tool-result': fieldSet('toolCallId', 'toolName', 'output'),
  'tool-approval-request': fieldSet('approvalId', 'toolCallId'),
  'tool-approval-response': fieldSet('approvalId', 'approved', 'reason'),
};
const otherPartFields = fieldSet();
const messageFields = new Set(['role', 'content', 'id', 'name', 'providerOptions', 'ctxmem']);
const outputFields = new Set(['type', 'value', 'reason', 'providerOptions']);
const ctxmemFields = new Set(['kind', 'offloadIds', 'replaces']);

export function checkMessage(value: unknown, index: number, context: ValidationContext): Message {
  const path = `messages[${index}]`;
  return readingAt(path, () => checkMessageAt(value, path, context));
}

/**
 * Checks what a message's fingerprint leaves out (see `context/check-new-messages.ts`): its fields
 * besides role, name, content and provider options, that is ctxmem's metadata and fields ctxmem
 * does not know. For a message whose fingerprint was checked already: cheap, since these are few.
 */
export function checkUnfingerprintedFields(value: unknown, index: number): void {
  if (onlyFingerprintedFields(value)) return;
  const path = `messages[${index}]`;
  readingAt(path, () => {
    if (!isPlainObject(value)) fail(path, `expected a message object, got ${describeValue(value)}`);
    checkExtraFields(value, messageFields, path, [value]);
    if (value.ctxmem !== undefined) checkCtxmem(value.ctxmem, `${path}.ctxmem`);
  });
}

/** The fields a fingerprint covers (the id's shape is part of its key). */
const fingerprintedFields = new Set(['role', 'content', 'name', 'providerOptions', 'id']);

/** Most messages hold no other field: one pass over their keys, reading no value. */
function onlyFingerprintedFields(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) if (!fingerprintedFields.has(key)) return false;
  return true;
}

function checkMessageAt(value: unknown, path: string, context: ValidationContext): Message {
  if (!isPlainObject(value)) fail(path, `expected a message object, got ${describeValue(value)}`);
  const role = value.role;
  if (typeof role !== 'string' || !roles.has(role)) {
    fail(
      `${path}.role`,
      typeof role === 'string'
        ? `unknown role ${JSON.stringify(role)} (expected system, user, assistant or tool)`
        : `expected a role string, got ${describeValue(role)}`,
    );
  }
  const ancestors = [value];
  checkExtraFields(value, messageFields, path, ancestors);
  const message = editable(value);
  if (value.id !== undefined) {
    message.set('id', checkText(value.id, `${path}.id`, context, { nonEmpty: true }));
  }
  if (value.name !== undefined) message.set('name', checkText(value.name, `${path}.name`, context));
  if (value.providerOptions !== undefined) {
    message.set(
      'providerOptions',
      checkProviderOptions(value.providerOptions, `${path}.providerOptions`, context, ancestors),
    );
  }
  if (value.ctxmem !== undefined) checkCtxmem(value.ctxmem, `${path}.ctxmem`);

  const contentPath = `${path}.content`;
  const content = value.content;
  if (role === 'system') {
    if (typeof content !== 'string') {
      fail(contentPath, `a system message needs string content, got ${describeValue(content)}`);
    }
    message.set('content', checkText(content, contentPath, context));
  } else if (role === 'tool') {
    if (!Array.isArray(content)) {
      fail(contentPath, `a tool message needs an array of parts, got ${describeValue(content)}`);
    }
    message.set('content', checkParts(content, role, contentPath, context, [value, content]));
  } else if (typeof content === 'string') {
    message.set('content', checkText(content, contentPath, context));
  } else if (Array.isArray(content)) {
    message.set('content', checkParts(content, role, contentPath, context, [value, content]));
  } else {
    fail(
      contentPath,
      `a ${role} message needs a string or an array of parts, got ${describeValue(content)}`,
    );
  }
  return message.result() as unknown as Message;
}

function checkCtxmem(value: unknown, path: string): void {
  if (!isPlainObject(value)) fail(path, `expected an object, got ${describeValue(value)}`);
  if (typeof value.kind !== 'string' || !ctxmemKinds.has(value.kind as CtxmemMessageKind)) {
    fail(`${path}.kind`, `unknown ctxmem message kind ${describeValue(value.kind)}`);
  }
  for (const key of ['offloadIds', 'replaces'] as const) {
    const list = value[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(`${path}.${key}`, `expected an array of strings`);
    for (let index = 0; index < list.length; index++) {
      if (typeof list[index] !== 'string') {
        fail(`${path}.${key}[${index}]`, `expected a string, got ${describeEntry(list, index)}`);
      }
    }
  }
  checkExtraFields(value, ctxmemFields, path, [value]);
}

/**
 * ctxmem's metadata read back from a framework's message (a copy), or undefined when `value` is
 * not well formed: an adapter keeps what it cannot trust as plain data instead of failing.
 */
export function readCtxmemMetadata(value: unknown): CtxmemMessageMetadata | undefined {
  try {
    checkCtxmem(value, 'ctxmem');
  } catch (error) {
    if (InvalidMessageError.isInstance(error)) return undefined;
    throw error;
  }
  const { kind, offloadIds, replaces } = value as CtxmemMessageMetadata;
  return {
    kind,
    ...(offloadIds === undefined ? {} : { offloadIds: [...offloadIds] }),
    ...(replaces === undefined ? {} : { replaces: [...replaces] }),
  };
}

export function checkParts(
  parts: unknown[],
  role: string,
  path: string,
  context: ValidationContext,
  ancestors: readonly object[] = [parts],
): unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index];
    if (part === undefined && !(index in parts)) {
      fail(
        `${path}[${index}]`,
        `expected a content part object, got ${describeEntry(parts, index)}`,
      );
    }
    const checked = checkPart(part, role, `${path}[${index}]`, context, ancestors);
    if (checked !== part) {
      copy ??= parts.slice();
      copy[index] = checked;
    }
  }
  return copy ?? parts;
}

export function checkPart(
  value: unknown,
  role: string,
  path: string,
  context: ValidationContext,
  enclosing: readonly object[] = [],
): unknown {
  if (!isPlainObject(value))
    fail(path, `expected a content part object, got ${describeValue(value)}`);
  const type = value.type;
  if (typeof type !== 'string')
    fail(`${path}.type`, `expected a part type, got ${describeValue(type)}`);
  if (!partTypesByRole[role]!.has(type)) {
    fail(
      path,
      knownPartTypes.has(type)
        ? `a ${role} message cannot hold a '${type}' part`
        : `unknown part type ${JSON.stringify(type)}`,
    );
  }
  const ancestors = [...enclosing, value];
  checkExtraFields(value, partFields[type] ?? otherPartFields, path, ancestors);
  const part = editable(value);
  const field = (key: string) => `${path}.${key}`;
  if (value.providerOptions !== undefined) {
    part.set(
      'providerOptions',
      checkProviderOptions(value.providerOptions, field('providerOptions'), context, ancestors),
    );
  }
  switch (type) {
    case 'text':
    case 'reasoning':
      part.set('text', checkText(value.text, field('text'), context));
      break;
    case 'image':
      part.set('image', checkDataContent(value.image, field('image'), context));
      if (value.mediaType !== undefined) {
        part.set('mediaType', checkText(value.mediaType, field('mediaType'), context));
      }
      break;
    case 'file':
      part.set('data', checkDataContent(value.data, field('data'), context));
      part.set('mediaType', checkText(value.mediaType, field('mediaType'), context));
      if (value.filename !== undefined) {
        part.set('filename', checkText(value.filename, field('filename'), context));
      }
      break;
    case 'tool-call':
      part.set(
        'toolCallId',
        checkText(value.toolCallId, field('toolCallId'), context, { nonEmpty: true }),
      );
      part.set(
        'toolName',
        checkText(value.toolName, field('toolName'), context, { nonEmpty: true }),
      );
      if (value.input === undefined) fail(field('input'), 'a tool call needs an input');
      part.set('input', inspectJsonValue(value.input, field('input'), context, ancestors));
      if (value.providerExecuted !== undefined && typeof value.providerExecuted !== 'boolean') {
        fail(
          field('providerExecuted'),
          `expected a boolean, got ${describeValue(value.providerExecuted)}`,
        );
      }
      break;
    case 'tool-result':
      part.set(
        'toolCallId',
        checkText(value.toolCallId, field('toolCallId'), context, { nonEmpty: true }),
      );
      part.set('toolName', checkText(value.toolName, field('toolName'), context));
      part.set('output', checkOutput(value.output, field('output'), context, ancestors));
      break;
    case 'custom': {
      const kind = checkText(value.kind, field('kind'), context, { nonEmpty: true });
      // The AI SDK's `CustomPart` names its kind `{provider}.{type}`.
      if (!/^[^.]+\.[^.]/.test(kind)) {
        fail(
          field('kind'),
          `expected a kind of the form provider.type, got ${JSON.stringify(kind)}`,
        );
      }
      part.set('kind', kind);
      break;
    }
    case 'tool-approval-request':
      part.set(
        'approvalId',
        checkText(value.approvalId, field('approvalId'), context, { nonEmpty: true }),
      );
      part.set(
        'toolCallId',
        checkText(value.toolCallId, field('toolCallId'), context, { nonEmpty: true }),
      );
      break;
    case 'tool-approval-response':
      part.set(
        'approvalId',
        checkText(value.approvalId, field('approvalId'), context, { nonEmpty: true }),
      );
      if (typeof value.approved !== 'boolean') {
        fail(field('approved'), `expected a boolean, got ${describeValue(value.approved)}`);
      }
      if (value.reason !== undefined) {
        part.set('reason', checkText(value.reason, field('reason'), context));
      }
      break;
  }
  return part.result();
}

export function checkOutput(
  value: unknown,
  path: string,
  context: ValidationContext,
  enclosing: readonly object[] = [],
): unknown {
  if (!isPlainObject(value))
    fail(path, `expected a tool result output, got ${describeValue(value)}`);
  const ancestors = [...enclosing, value];
  checkExtraFields(value, outputFields, path, ancestors);
  const output = editable(value);
  const field = (key: string) => `${path}.${key}`;
  if (value.providerOptions !== undefined) {
    output.set(
      'providerOptions',
      checkProviderOptions(value.providerOptions, field('providerOptions'), context, ancestors),
    );
  }
  switch (value.type) {
    case 'text':
    case 'error-text':
      output.set('value', checkText(value.value, field('value'), context));
      break;
    case 'json':
    case 'error-json':
      if (value.value === undefined) fail(field('value'), 'a JSON output needs a value');
      output.set('value', inspectJsonValue(value.value, field('value'), context, ancestors));
      break;
    case 'execution-denied':
      if (value.reason !== undefined) {
        output.set('reason', checkText(value.reason, field('reason'), context));
      }
      break;
    case 'content': {
      const items = value.value;
      if (!Array.isArray(items)) {
        fail(field('value'), `expected an array of content items, got ${describeValue(items)}`);
      }
      // Item shapes beyond text and media vary between AI SDK versions; they only need to be JSON.
      // The JSON walk first: it reads every item once and names a hole or a getter that throws.
      output.set('value', inspectJsonValue(items, field('value'), context, ancestors));
      items.forEach((item, index) => {
        const itemPath = `${path}.value[${index}]`;
        if (!isPlainObject(item) || typeof item.type !== 'string') {
          fail(itemPath, `expected a content item with a type, got ${describeValue(item)}`);
        }
        if (item.type === 'text' && typeof item.text !== 'string') {
          fail(`${itemPath}.text`, `expected a string, got ${describeValue(item.text)}`);
        }
        if (item.type === 'media') {
          for (const key of ['data', 'mediaType']) {
            if (typeof item[key] !== 'string') {
              fail(`${itemPath}.${key}`, `expected a string, got ${describeValue(item[key])}`);
            }
          }
        }
      });
      break;
    }
    default:
      fail(
        field('type'),
        `unknown tool output type ${typeof value.type === 'string' ? JSON.stringify(value.type) : describeValue(value.type)}`,
      );
  }
  return output.result();
}

// ---------------------------------------------------------------------------------------------
// Tool pairing
