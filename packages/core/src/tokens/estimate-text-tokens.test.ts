import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../contracts/index.js';
import { createEstimateCounter, createTokenCounter, estimateTextTokens } from './index.js';

// Hand-written samples of what prompts carry; the estimator's constants were fitted on them.
const SAMPLES: Record<string, string> = {
  english: `Context windows are large, but they are not free. Every token you send costs money and latency, and models read long prompts less carefully than short ones. A good memory layer keeps the recent turns verbatim, compresses older tool output, and summarizes whole rounds only when it has to. When the user comes back a week later, the assistant should still remember that they prefer TypeScript, deploy on Tuesdays, and never want force pushes to the main branch. This paragraph exists to check that the estimator stays close to the real tokenizer on ordinary prose, including numbers like 42, 3.14 and 2025-11-22, quotes "like these", and parentheses (such as this one).`,
  markdown: `## Release notes\n\n- **Breaking:** \`createCounter()\` now returns a frozen object.\n- Fixed a race in the file store when two processes append at once (#128).\n- Added \`cacheSize\` option; defaults to 10,000 entries.\n\n### Upgrade\n\n1. Run \`pnpm up @ctxmem/core\`.\n2. Replace \`counter.count(text)\` with \`counter.countText(text)\`.\n3. Check the [migration guide](https://example.com/docs/migrate) for details.\n\n> Note: summaries written by 0.3 are still readable.\n`,
  typescript: `export function splitRounds(messages: readonly Message[], from = 0, to = messages.length): Round[] {\n  const rounds: Round[] = [];\n  let start = from;\n  for (let index = from; index < to; index++) {\n    const message = messages[index]!;\n    if (message.role === 'user' && !isCtxmemMessage(message) && index > start) {\n      rounds.push({ start, end: index });\n      start = index;\n    }\n  }\n  if (start < to) rounds.push({ start, end: to });\n  return rounds;\n}\n\nconst cache = new Map<string, number>();\nexport const getOrCompute = (key: string, compute: () => number): number => {\n  const hit = cache.get(key);\n  if (hit !== undefined) return hit;\n  const value = compute();\n  cache.set(key, value);\n  return value;\n};\n`,
  python: `import json\nfrom pathlib import Path\n\n\ndef load_config(path: Path) -> dict:\n    """Load the configuration file, falling back to defaults."""\n    if not path.exists():\n        return {"model": "gpt-4o", "max_tokens": 4096, "temperature": 0.2}\n    with path.open("r", encoding="utf-8") as handle:\n        data = json.load(handle)\n    for key, value in data.items():\n        if value is None:\n            raise ValueError(f"missing value for {key!r}")\n    return data\n\n\nclass TokenBudget:\n    def __init__(self, limit: int, reserve: int = 1024) -> None:\n        self.limit = limit\n        self.reserve = reserve\n\n    def remaining(self, used: int) -> int:\n        return max(0, self.limit - self.reserve - used)\n`,
  jsonPretty: JSON.stringify(
    {
      user: {
        id: 'u_8f3a2c',
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        roles: ['admin', 'editor'],
        createdAt: '2025-03-14T09:26:53.589Z',
      },
      orders: [
        {
          id: 1042,
          total: 99.95,
          currency: 'EUR',
          items: [
            { sku: 'BK-001', quantity: 2 },
            { sku: 'PN-417', quantity: 1 },
          ],
        },
        { id: 1043, total: 12.5, currency: 'EUR', items: [{ sku: 'ST-220', quantity: 5 }] },
      ],
      settings: { theme: 'dark', notifications: true, language: 'en-GB' },
    },
    null,
    2,
  ),
  jsonMinified: JSON.stringify({
    results: [
      {
        title: 'Token counting in practice',
        url: 'https://example.com/a/token-counting',
        score: 0.9321,
        snippet: 'Counting tokens exactly needs the same vocabulary as the model.',
      },
      {
        title: 'Prompt caching',
        url: 'https://example.com/b/prompt-caching',
        score: 0.8812,
        snippet: 'Keep the prefix byte-identical between calls.',
      },
      {
        title: 'Summaries that keep decisions',
        url: 'https://example.com/c/summaries',
        score: 0.7403,
        snippet: 'Decisions, open questions and file paths survive compression.',
      },
    ],
    total: 3,
    took_ms: 48,
  }),
  logs: `2025-11-22T07:51:03.114Z INFO  server listening on http://127.0.0.1:8787\n2025-11-22T07:51:04.902Z WARN  slow request GET /api/sessions/4f1c9e2a 1834ms\n2025-11-22T07:51:05.017Z ERROR ECONNRESET while reading from upstream (attempt 2/3)\n2025-11-22T07:51:05.533Z INFO  compacted session 4f1c9e2a: 182341 -> 61020 tokens in 412ms\n2025-11-22T07:51:06.200Z DEBUG cache hit ratio 0.973 (entries=9812, evictions=188)\n`,
  chinese: `上下文窗口虽然很大，但并不是免费的。发送的每一个词元都会带来费用和延迟，而且模型在阅读很长的提示时往往不如阅读简短提示时仔细。一个好的记忆层会原样保留最近几轮对话，压缩较早的工具输出，只有在必要时才会总结整轮对话。当用户一周后再回来时，助手仍然应该记得他们喜欢使用类型脚本、习惯在星期二部署，并且从不希望强制推送到主分支。`,
  japanese: `コンテキストウィンドウは大きいですが、無料ではありません。送信するすべてのトークンには費用と遅延がかかり、モデルは長いプロンプトを短いものほど注意深く読みません。優れたメモリ層は最近のやり取りをそのまま残し、古いツールの出力を圧縮し、必要なときだけ会話全体を要約します。ユーザーが一週間後に戻ってきても、アシスタントは好みの言語や作業の習慣を覚えているべきです。`,
  korean: `컨텍스트 창은 크지만 무료는 아닙니다. 보내는 모든 토큰에는 비용과 지연 시간이 들고, 모델은 긴 프롬프트를 짧은 프롬프트만큼 주의 깊게 읽지 않습니다. 좋은 메모리 계층은 최근 대화를 그대로 유지하고, 오래된 도구 출력을 압축하며, 꼭 필요할 때만 전체 대화를 요약합니다. 사용자가 일주일 뒤에 돌아와도 어시스턴트는 사용자의 선호와 작업 습관을 기억해야 합니다.`,
  russian: `Контекстные окна велики, но не бесплатны. Каждый отправленный токен стоит денег и времени, а длинные подсказки модели читают менее внимательно, чем короткие. Хороший слой памяти сохраняет последние реплики дословно, сжимает старые результаты инструментов и подводит итоги целых раундов только тогда, когда это действительно нужно. Когда пользователь вернётся через неделю, ассистент всё ещё должен помнить его предпочтения.`,
  german: `Kontextfenster sind groß, aber nicht kostenlos. Jedes gesendete Token kostet Geld und Zeit, und Modelle lesen lange Eingaben weniger sorgfältig als kurze. Eine gute Gedächtnisschicht behält die letzten Gesprächsrunden wörtlich bei, komprimiert ältere Werkzeugausgaben und fasst ganze Runden nur dann zusammen, wenn es nötig ist. Kommt die Nutzerin eine Woche später zurück, sollte sich der Assistent noch an ihre Vorlieben erinnern.`,
  spanish: `Las ventanas de contexto son grandes, pero no son gratuitas. Cada token que envías cuesta dinero y latencia, y los modelos leen las instrucciones largas con menos atención que las cortas. Una buena capa de memoria conserva literalmente los turnos recientes, comprime la salida antigua de las herramientas y resume rondas completas solo cuando es necesario. Cuando el usuario vuelve una semana después, el asistente todavía debería recordar sus preferencias.`,
  base64:
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg' +
    'QmFzZTY0IGlzIGEgZ3JvdXAgb2YgYmluYXJ5LXRvLXRleHQgZW5jb2Rpbmcgc2NoZW1lcyB0aGF0IHJlcHJlc2VudCBiaW5hcnkgZGF0YSBpbiBhbiBBU0NJSSBzdHJpbmcgZm9ybWF0IGJ5IHRyYW5zbGF0aW5nIGl0IGludG8gYSByYWRpeC02NCByZXByZXNlbnRhdGlvbi4gVGhlIHRlcm0gQmFzZTY0IG9yaWdpbmF0ZXMgZnJvbSBhIHNwZWNpZmljIE1JTUUgY29udGVudCB0cmFuc2ZlciBlbmNvZGluZy4=',
  hexIds:
    'commit 9f4b942e1c7a0d3b5e8f2a6c4d1e7b9a0c3f5d2e\nrequest ids: 3f2a9c1e-7b4d-4e8a-9c2f-1d6b3e5a7c90, a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d\nsha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n',
  chat: `hey!! 😀 did the deploy work?? 🎉🎉\nyep, all green ✅ — took ~4 min though…\nnice 👍 can u send me the link → https://ci.example.com/runs/8812\n`,
};

const exact = createTokenCounter({ encoding: 'o200k_base' });

describe('estimateTextTokens', () => {
  const errors = Object.entries(SAMPLES).map(([label, text]) => {
    const actual = exact.countText(text);
    return { label, actual, error: (estimateTextTokens(text) - actual) / actual };
  });

  it.each(errors)('estimates $label within 20% of o200k_base', ({ error }) => {
    expect(Math.abs(error)).toBeLessThanOrEqual(0.2);
  });

  it('is within 10% of o200k_base on average over the samples', () => {
    const mean = errors.reduce((sum, { error }) => sum + Math.abs(error), 0) / errors.length;
    expect(mean).toBeLessThanOrEqual(0.1);
  });

  it('counts nothing as nothing and any visible text as something', () => {
    expect(estimateTextTokens('')).toBe(0);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (text) => {
        const estimate = estimateTextTokens(text);
        expect(Number.isInteger(estimate)).toBe(true);
        expect(estimate).toBeGreaterThanOrEqual(text.trim() === '' ? 0 : 1);
        expect(estimate).toBeLessThanOrEqual(2 * text.length);
      }),
      { numRuns: 200 },
    );
  });

  it('charges base64 like the tokenizer does, not like words', () => {
    const data = SAMPLES.base64!;
    expect(estimateTextTokens(data)).toBeGreaterThan(data.length / 2);
    // A long identifier mixes cases like base64 but is not dense.
    const identifier = 'getOrCreateSessionContextForCurrentUser';
    expect(estimateTextTokens(identifier)).toBeLessThan(identifier.length / 3);
  });
});

describe('createEstimateCounter', () => {
  const counter = createEstimateCounter();

  it('is named estimate and keeps the counter contract', () => {
    const messages: Message[] = [
      { role: 'system', content: SAMPLES.english! },
      { role: 'user', content: [{ type: 'image', image: 'aGVsbG8=', mediaType: 'image/png' }] },
    ];
    expect(counter.name).toBe('estimate');
    expect(counter.countMessages(messages)).toBe(
      counter.countMessage(messages[0]!) + counter.countMessage(messages[1]!) + 3,
    );
    expect(counter.countMessage(messages[1]!)).toBe(3 + 1 + 1000);
  });

  it('estimates a conversation close to the exact counter', () => {
    const messages: Message[] = Object.values(SAMPLES).map((content, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content,
    }));
    const estimate = counter.countMessages(messages);
    const actual = exact.countMessages(messages);
    expect(Math.abs(estimate - actual) / actual).toBeLessThanOrEqual(0.1);
  });
});
