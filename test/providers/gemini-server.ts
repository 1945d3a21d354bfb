/**
 * A local fake of the Gemini API (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`) that enforces the documented request rules and answers rule
 * breaks and overflows with Gemini's error bodies (`{ error: { code, message, status } }`).
 * Sources of each rule:
 *
 * - Function calling (https://ai.google.dev/gemini-api/docs/function-calling): a function call
 *   turn comes right after a user turn or a function response turn; a function response turn
 *   comes right after the function call turn and holds as many `functionResponse` parts as it had
 *   `functionCall` parts.
 * - Thought signatures (https://ai.google.dev/gemini-api/docs/thought-signatures): with thinking
 *   (Gemini 3 validates strictly), the first `functionCall` part of every step of the current turn
 *   carries the signature the model returned, unchanged; the documented
 *   `skip_thought_signature_validator` value is accepted (and noted on the request).
 * - `generateContent` reference (https://ai.google.dev/api/generate-content): roles are `user` and
 *   `model`, contents and parts are not empty.
 * - Token limits (https://ai.google.dev/gemini-api/docs/tokens): input over the model's limit is
 *   `The input token count (N) exceeds the maximum number of tokens allowed (M).`
 *
 * Tokens are counted as Gemini might (see `provider-tokens.ts`), not as ctxmem does.
 */
import { type ProviderRequest, startFakeHttpServer } from './http-server.js';
import {
  createProviderTokenizer,
  type ProviderTokenizer,
  type ProviderTokenizerSettings,
} from './provider-tokens.js';
import { type FakeProviderServer, fakeProviderServer, RuleBreak } from './rule-break.js';
import {
  createSigner,
  outputTokens,
  type ScriptedHandler,
  type ScriptedRequest,
  type Signer,
} from './scripted-reply.js';

export const GEMINI_TOKENIZER: ProviderTokenizerSettings = {
  scale: 1.18,
  punctuationWeight: 0.3,
  cjkWeight: 0.3,
  perMessage: 3,
  perBlock: 2,
  perTool: 25,
  perRequest: 4,
};

/** The sentinel Google documents for replaying a function call whose signature was lost. */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

export interface GeminiServerOptions {
  handler: ScriptedHandler;
  /** The model's input token limit. @default 1_048_576 */
  contextWindow?: number;
  /** Overrides of how the server counts tokens. @default GEMINI_TOKENIZER */
  tokenizer?: Partial<ProviderTokenizerSettings>;
}

export interface GeminiServer extends FakeProviderServer {
  /** Requests that replayed a function call with the skip sentinel instead of its signature. */
  signatureSkips(): ProviderRequest[];
}

type Part = Record<string, unknown>;
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorBody(code: number, message: string, status: string) {
  return { error: { code, message, status } };
}

const isCall = (part: Part) => isObject(part.functionCall);
const isResponse = (part: Part) => isObject(part.functionResponse);

function thinkingOn(model: string, body: Record<string, unknown>): boolean {
  const config = isObject(body.generationConfig) ? body.generationConfig.thinkingConfig : undefined;
  if (isObject(config)) {
    if (config.includeThoughts === true) return true;
    if (typeof config.thinkingBudget === 'number') return config.thinkingBudget !== 0;
    if (config.thinkingLevel !== undefined) return true;
  }
  return model.startsWith('gemini-3');
}

/** Index of the content that starts the current turn: the newest user content with text. */
function currentTurnStart(contents: readonly Content[]): number {
  for (let index = contents.length - 1; index >= 0; index--) {
    const content = contents[index]!;
    if (content.role === 'user' && content.parts.some((part) => !isResponse(part))) return index;
  }
  return 0;
}

function checkContents(body: Record<string, unknown>): Content[] {
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) {
    throw new RuleBreak('* GenerateContentRequest.contents: contents is not specified\n');
  }
  return contents.map((content, index) => {
    if (!isObject(content)) throw new RuleBreak(`Invalid value at 'contents[${index}]'`);
    const role = content.role ?? 'user';
    if (role !== 'user' && role !== 'model') {
      throw new RuleBreak('Please use a valid role: user, model.');
    }
    if (!Array.isArray(content.parts) || content.parts.length === 0) {
      throw new RuleBreak(
        `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`,
      );
    }
    return { role, parts: content.parts.filter(isObject) as Part[] };
  });
}

function checkRules(
  contents: readonly Content[],
  signer: Signer,
  strictSignatures: boolean,
): { skippedSignatures: number } {
  contents.forEach((content, index) => {
    const calls = content.parts.filter(isCall);
    const responses = content.parts.filter(isResponse);
    const previous = contents[index - 1];
    if (calls.length > 0 && previous?.role !== 'user') {
      throw new RuleBreak(
        'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
      );
    }
    if (responses.length > 0) {
      const previousCalls = previous?.role === 'model' ? previous.parts.filter(isCall) : [];
      if (previousCalls.length === 0) {
        throw new RuleBreak(
          'Please ensure that function response turn comes immediately after a function call turn.',
        );
      }
      if (previousCalls.length !== responses.length) {
        throw new RuleBreak(
          'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
        );
      }
    }
  });
  let skippedSignatures = 0;
  const start = currentTurnStart(contents);
  contents.forEach((content, index) => {
    content.parts.forEach((part, position) => {
      const signature = part.thoughtSignature;
      if (signature === undefined) return;
      if (signature === SKIP_THOUGHT_SIGNATURE) {
        skippedSignatures++;
        return;
      }
      if (signer.open('thought', signature) === undefined) {
        throw new RuleBreak(
          `Thought signature is not valid. (contents[${index}].parts[${position}])`,
        );
      }
    });
    if (!strictSignatures || index < start || content.role !== 'model') return;
    const position = content.parts.findIndex(isCall);
    if (position === -1) return;
    const first = content.parts[position]!;
    if (first.thoughtSignature === undefined) {
      const name = String((first.functionCall as Record<string, unknown>).name);
      throw new RuleBreak(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
  });
  return { skippedSignatures };
}

function partText(part: Part): string {
  if (typeof part.text === 'string') return part.text;
  if (isCall(part)) {
    const call = part.functionCall as Record<string, unknown>;
    return `${String(call.name)}${JSON.stringify(call.args ?? {})}`;
  }
  if (isResponse(part)) {
    const response = part.functionResponse as Record<string, unknown>;
    return `${String(response.name)}${JSON.stringify(response.response ?? {})}`;
  }
  return '';
}

function countRequest(
  body: Record<string, unknown>,
  contents: readonly Content[],
  tokenizer: ProviderTokenizer,
): number {
  const { settings } = tokenizer;
  let tokens = settings.perRequest;
  const system = body.systemInstruction;
  if (isObject(system) && Array.isArray(system.parts)) {
    tokens += settings.perMessage;
    for (const part of system.parts) {
      if (isObject(part) && typeof part.text === 'string') tokens += tokenizer.text(part.text);
    }
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) {
      const declarations = isObject(tool) ? tool.functionDeclarations : undefined;
      if (!Array.isArray(declarations)) continue;
      for (const declaration of declarations)
        tokens += settings.perTool + tokenizer.json(declaration);
    }
  }
  const start = currentTurnStart(contents);
  contents.forEach((content, index) => {
    tokens += settings.perMessage;
    for (const part of content.parts) {
      // Thoughts of earlier turns are not part of the context the model reads.
      if (part.thought === true && index < start) continue;
      tokens += settings.perBlock;
      if (isObject(part.inlineData) || isObject(part.fileData)) tokens += 258;
      else if (isCall(part)) {
        const call = part.functionCall as Record<string, unknown>;
        tokens += tokenizer.text(String(call.name)) + tokenizer.json(call.args ?? {});
      } else if (isResponse(part)) {
        const response = part.functionResponse as Record<string, unknown>;
        tokens += tokenizer.text(String(response.name)) + tokenizer.json(response.response ?? {});
      } else tokens += tokenizer.text(partText(part));
    }
  });
  return tokens;
}

function scriptedView(request: ProviderRequest, contents: readonly Content[]): ScriptedRequest {
  const system = request.body.systemInstruction;
  const systemText =
    isObject(system) && Array.isArray(system.parts)
      ? system.parts.map((part) => (isObject(part) ? String(part.text ?? '') : '')).join('\n')
      : '';
  const start = currentTurnStart(contents);
  const lastUser = contents[start];
  const tools: string[] = [];
  if (Array.isArray(request.body.tools)) {
    for (const tool of request.body.tools) {
      const declarations = isObject(tool) ? tool.functionDeclarations : undefined;
      if (Array.isArray(declarations)) {
        for (const declaration of declarations)
          if (isObject(declaration)) tools.push(String(declaration.name));
      }
    }
  }
  return {
    raw: request,
    system: systemText,
    lastUserText:
      lastUser?.role === 'user'
        ? lastUser.parts
            .filter((part) => typeof part.text === 'string')
            .map((part) => String(part.text))
            .join('\n')
        : '',
    toolResultsSinceUser: contents
      .slice(start + 1)
      .reduce((sum, content) => sum + content.parts.filter(isResponse).length, 0),
    text: [systemText, ...contents.flatMap((content) => content.parts.map(partText))].join('\n'),
    tools,
  };
}

/** Starts the fake Gemini API. `url` is the base URL for `createGoogleGenerativeAI({ baseURL })`. */
export async function startGeminiServer({
  handler,
  contextWindow = 1_048_576,
  tokenizer: tokenizerOverrides = {},
}: GeminiServerOptions): Promise<GeminiServer> {
  const signer = createSigner();
  const tokenizer = createProviderTokenizer({ ...GEMINI_TOKENIZER, ...tokenizerOverrides });
  const skips = new Set<ProviderRequest>();
  let responseCount = 0;

  const server = await startFakeHttpServer(
    async (request) => {
      const match = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)$/.exec(
        request.path,
      );
      if (!match) {
        return {
          status: 404,
          json: errorBody(404, `Not found: ${request.path}`, 'NOT_FOUND'),
        };
      }
      const model = match[1]!;
      const streaming = match[2] === 'streamGenerateContent';
      request.stream = streaming;
      const { body } = request;
      const thinking = thinkingOn(model, body);
      let contents: Content[];
      try {
        contents = checkContents(body);
        const { skippedSignatures } = checkRules(contents, signer, thinking);
        if (skippedSignatures > 0) skips.add(request);
      } catch (error) {
        if (!(error instanceof RuleBreak)) throw error;
        return {
          status: 400,
          json: errorBody(400, error.message, 'INVALID_ARGUMENT'),
          rejection: { kind: 'rule' as const, message: error.message },
        };
      }
      const inputTokens = countRequest(body, contents, tokenizer);
      request.inputTokens = inputTokens;
      if (inputTokens > contextWindow) {
        const message = `The input token count (${inputTokens}) exceeds the maximum number of tokens allowed (${contextWindow}).`;
        return {
          status: 400,
          json: errorBody(400, message, 'INVALID_ARGUMENT'),
          rejection: { kind: 'overflow' as const, message },
        };
      }
      const reply = await handler(scriptedView(request, contents));
      const parts: Part[] = [];
      const config = isObject(body.generationConfig)
        ? body.generationConfig.thinkingConfig
        : undefined;
      const showThoughts = isObject(config) && config.includeThoughts === true;
      if (thinking && showThoughts && reply.reasoning !== undefined) {
        parts.push({ text: reply.reasoning, thought: true });
      }
      const calls = reply.toolCalls ?? [];
      const text = reply.text ?? (calls.length > 0 ? '' : 'ok');
      if (text !== '') parts.push({ text });
      for (const call of calls) parts.push({ functionCall: { name: call.name, args: call.input } });
      if (thinking) {
        // The signature rides on the first function call, or on the last part without calls.
        const signed = parts.find(isCall) ?? parts.at(-1);
        if (signed) signed.thoughtSignature = signer.seal('thought', `response ${responseCount}`);
      }
      const output = outputTokens(reply);
      const usageMetadata = {
        promptTokenCount: inputTokens,
        candidatesTokenCount: output,
        totalTokenCount: inputTokens + output,
        ...(thinking ? { thoughtsTokenCount: 12 } : {}),
      };
      const responseId = `resp-fake-${++responseCount}`;
      const finishReason = 'STOP';
      request.reply = {
        candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
        usageMetadata,
        modelVersion: model,
        responseId,
      };
      if (!streaming) {
        return { status: 200, json: request.reply };
      }
      const events = parts.map((part, index) => ({
        data: {
          candidates: [
            {
              content: { role: 'model', parts: [part] },
              index: 0,
              ...(index === parts.length - 1 ? { finishReason } : {}),
            },
          ],
          ...(index === parts.length - 1 ? { usageMetadata } : {}),
          modelVersion: model,
          responseId,
        },
      }));
      return { status: 200 as const, events };
    },
    (message) => ({ status: 400, json: errorBody(400, message, 'INVALID_ARGUMENT') }),
  );
  return {
    ...fakeProviderServer(server, `${server.origin}/v1beta`),
    signatureSkips: () => [...skips],
  };
}
