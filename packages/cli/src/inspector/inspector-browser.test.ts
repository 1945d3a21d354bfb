import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTokenCounter } from '@ctxmem/core';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTRIBUTE_XSS,
  agentConversation,
  conversationWithLaterCalls,
  inspectStoredSession,
  REFUSAL,
  refusingSummarizer,
  SCRIPT_XSS,
} from './fixture.test-helper.js';
import {
  type InspectorServer,
  inspectConversation,
  renderInspectorHtml,
  serveInspector,
} from './index.js';

/**
 * Debian's `chromium` (browser downloads are not reachable here), or only `CTXMEM_CHROMIUM` when
 * set. Without one the tests skip, and say so on stderr: `.ci/run` installs it.
 */
const candidates = process.env.CTXMEM_CHROMIUM
  ? [process.env.CTXMEM_CHROMIUM]
  : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const chromium = candidates.find((path) => existsSync(path));

if (chromium === undefined) {
  process.stderr.write(
    `\n*** SKIPPED inspector browser tests: no chromium at ${candidates.join(' or ')} (apt-get install chromium, or set CTXMEM_CHROMIUM=/path/to/chrome) ***\n\n`,
  );
}

/** Where the screenshot goes: `CTXMEM_ARTIFACT_DIR` (docs/ refreshes the README's), else tmp. */
const artifacts = resolve(process.env.CTXMEM_ARTIFACT_DIR ?? join(tmpdir(), 'ctxmem-artifacts'));

describe.skipIf(chromium === undefined)('the inspector page in headless chromium', () => {
  let browser: Browser;
  let server: InspectorServer;
  let page: Page;
  let compactions: number;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    const inspection = await inspectConversation({
      messages: agentConversation(),
      counter: createTokenCounter(),
      contextWindow: 6_000,
      title: 'agent-session.json (fixture)',
    });
    compactions = inspection.calls.filter((call) => call.compaction).length;
    server = await serveInspector({ html: renderInspectorHtml(inspection) });
    const { launch } = await import('puppeteer-core');
    browser = await launch({
      executablePath: chromium!,
      headless: true,
      // Root in CI containers has no user namespaces for the sandbox.
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('loads and shows the expected number of compactions', async () => {
    const response = await page.goto(server.url, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(compactions).toBe(7);
    expect(await page.$$eval('#timeline tr.compaction', (rows) => rows.length)).toBe(compactions);
    expect(await page.$eval('#compaction-count', (element) => element.textContent)).toBe(
      String(compactions),
    );
  });

  it('reveals an offloaded original with one click', async () => {
    const offload = '#offloads details.offload';
    const visible = () =>
      page.$eval(`${offload} pre.original`, (element) => element.checkVisibility());
    expect(await visible()).toBe(false);
    await page.click(`${offload} > summary`);
    expect(await visible()).toBe(true);
    const original = await page.$eval(`${offload} pre.original`, (element) => element.textContent);
    expect(original).toContain('line 159: compiled module-159');
  });

  it('renders hostile markup as text and runs nothing', async () => {
    // A string, evaluated in the page: the CLI's TypeScript has no DOM types.
    const state = (await page.evaluate(`({
      xss: window.__xss,
      scripts: document.querySelectorAll('script').length,
      images: document.querySelectorAll('img').length,
      text: document.body.textContent,
    })`)) as { xss?: number; scripts: number; images: number; text: string };
    expect(state.xss).toBeUndefined();
    expect(state.scripts).toBe(0);
    expect(state.images).toBe(0);
    expect(state.text).toContain(SCRIPT_XSS);
    expect(state.text).toContain(ATTRIBUTE_XSS);
    expect(consoleErrors).toEqual([]);
  });

  it('refuses the page without the token', async () => {
    const response = await page.goto(server.url.replace(/\?token=.*$/, ''));
    expect(response?.status()).toBe(403);
    expect(await page.evaluate('document.body.textContent')).toContain('forbidden');
  });

  describe('a stored session whose model refused, with calls after its latest compaction', () => {
    let stored: InspectorServer;
    let recorded: number;
    let calls: number;

    beforeAll(async () => {
      const session = await inspectStoredSession({
        messages: conversationWithLaterCalls(),
        summarizer: refusingSummarizer(createTokenCounter()),
        summarizerCircuitBreaker: { failures: 2 },
      });
      const { historyStore, results, inspection } = session;
      calls = results.length;
      recorded = (await historyStore.getState({ sessionId: 'build-42' }))?.calls?.length ?? 0;
      stored = await serveInspector({ html: renderInspectorHtml(inspection) });
    });

    afterAll(async () => {
      await stored?.close();
    });

    it('shows every call: the recorded ones, then the reconstructed ones, marked', async () => {
      const response = await page.goto(stored.url, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const origins = await page.$$eval('#timeline tbody tr', (rows) =>
        rows.map((row) => row.getAttribute('data-origin')),
      );
      expect(recorded).toBeGreaterThan(0);
      expect(recorded).toBeLessThan(calls);
      expect(origins).toEqual([
        ...Array(recorded).fill('recorded'),
        ...Array(calls - recorded).fill('reconstructed'),
      ]);
      const badges = await page.$$eval('#timeline .badge.rebuilt', (elements) =>
        elements.map((element) => [element.textContent, element.checkVisibility()]),
      );
      expect(badges).toEqual(Array(calls - recorded).fill(['reconstructed', true]));
      await mkdir(artifacts, { recursive: true });
      const path = join(artifacts, 'inspector.png');
      // The main view: the notes and the whole timeline, down to its reconstructed calls.
      // The page has not scrolled since it loaded: the box's bottom is its place in the page.
      const bottom = await page.$eval(
        '#timeline',
        (element) => element.getBoundingClientRect().bottom,
      );
      await page.screenshot({
        path,
        clip: { x: 0, y: 0, width: 1280, height: Math.ceil(bottom) + 16 },
      });
      process.stderr.write(`inspector screenshot: ${path}\n`);
    });

    it('says why the summarizer fell back: the kind the record stored, not the words', async () => {
      const kinds = await page.$$eval('#timeline .fallback', (elements) =>
        elements.map((element) => [element.getAttribute('data-kind'), element.textContent]),
      );
      expect(kinds[0]).toEqual(['refusal', 'model failed: refusal (CtxmemSummarizerError)']);
      expect(kinds.map(([kind]) => kind)).toContain('circuit-open');
      expect(await page.evaluate('document.body.textContent')).not.toContain(REFUSAL);
    });

    it('opens a reconstructed call on the messages it added', async () => {
      const last = `#call-${calls}`;
      const shown = () =>
        page.$eval(`${last} details.prompt pre`, (element) => element.checkVisibility());
      // The last call is open by default; the messages it added are one click away.
      expect(await shown()).toBe(false);
      await page.click(`${last} details.prompt > summary`);
      expect(await shown()).toBe(true);
      const text = await page.$eval(`${last} details.prompt`, (element) => element.textContent);
      expect(text).toContain('Note it for Friday.');
      expect(await page.$eval(`${last} p.meta`, (element) => element.textContent)).toContain(
        'Reconstructed from the store, not recorded',
      );
    });
  });
});
