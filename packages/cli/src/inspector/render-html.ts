import { formatNumber } from '../format.js';
import { escapeHtml as e } from './escape-html.js';
import {
  type InspectedCall,
  type InspectedMemoryCard,
  type InspectedMessage,
  type InspectedOffload,
  type Inspection,
  type RecordedState,
  WINDOW_PART_LABELS,
  WINDOW_PARTS,
  type WindowPart,
} from './inspection.js';

/**
 * The page allows its own inline styles and nothing else: no scripts, no network. Escaping is
 * the first defence against content that looks like markup; this policy is the second.
 */
export const INSPECTOR_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const COLORS: Readonly<Record<(typeof WINDOW_PARTS)[number], string>> = {
  system: '#6b7280',
  summary: '#7c3aed',
  memories: '#db2777',
  history: '#2563eb',
  compressed: '#0891b2',
  toolResults: '#d97706',
  toolDefinitions: '#65a30d',
  outputReserve: '#d1d5db',
};

/** Parts of the window that are not messages: drawn after the budget's free room. */
const HELD_BACK: readonly WindowPart[] = ['toolDefinitions', 'outputReserve'];

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#111827;background:#f9fafb}
header,section{padding:12px 24px}
h1{font-size:20px;margin:8px 0}h2{font-size:17px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
h3{font-size:15px;margin:12px 0 4px}h4{font-size:13px;margin:8px 0 4px}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #e5e7eb;padding:3px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.compaction{background:#fef3c7}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #e5e7eb;padding:6px 8px;margin:4px 0;max-height:420px;overflow:auto}
details{background:#fff;border:1px solid #e5e7eb;border-radius:6px;margin:6px 0;padding:4px 10px}
details>summary{cursor:pointer;font-weight:600}
.bar{position:relative;display:flex;height:22px;background:#f3f4f6;border:1px solid #9ca3af;margin:6px 0;min-width:420px}
.bar.small{height:12px;min-width:200px;margin:0}
.seg{display:block;height:100%}
.marker{position:absolute;top:-4px;bottom:-4px;width:2px;background:#111827}
.marker.trigger{background:#dc2626}
.legend span.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border:1px solid #9ca3af}
.added{background:#dcfce7}.removed{background:#fee2e2;text-decoration:line-through}.kept{color:#6b7280}
.diff div{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px;padding:0 4px}
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;background:#e5e7eb;margin-left:6px}
.badge.warn{background:#fde68a}.badge.rebuilt{background:#dbeafe}
tr[data-origin="reconstructed"]{background:#eff6ff}
.message{border-left:3px solid #d1d5db;padding-left:8px;margin:6px 0}
.message .meta{font-size:12px;color:#4b5563}
.note{color:#374151}
`;

/** One self-contained page (styles inline, no script, no network) for an inspection. */
export function renderInspectorHtml(inspection: Inspection): string {
  const compactions = inspection.calls.filter((call) => call.compaction).length;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${e(INSPECTOR_CONTENT_SECURITY_POLICY)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>ctxmem inspector: ${e(inspection.title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    '<header>',
    `<h1>ctxmem inspector</h1><p><strong>${e(inspection.title)}</strong></p>`,
    ...inspection.notes.map((note) => `<p class="note">${e(note)}</p>`),
    `<p id="totals">${inspection.calls.length} calls, <span id="compaction-count">${compactions}</span> compactions, ${inspection.offloads.length} offloaded or compressed payloads; tokens counted with ${e(inspection.counter)}.</p>`,
    renderLegend(),
    '</header>',
    renderTimeline(inspection.calls, inspection.timeline ?? 'replay'),
    '<section id="calls"><h2>Calls</h2>',
    ...renderCalls(inspection.calls),
    '</section>',
    renderOffloads(inspection.offloads),
    renderMemories(inspection.calls),
    inspection.recorded ? renderRecorded(inspection.recorded) : '',
    '</body></html>',
    '',
  ].join('\n');
}

function renderLegend(): string {
  const items = WINDOW_PARTS.map(
    (part) =>
      `<span><span class="swatch" style="background:${COLORS[part]}"></span>${e(WINDOW_PART_LABELS[part])}</span>`,
  );
  return `<p class="legend">${items.join(' &nbsp; ')} &nbsp; <span>▮ budget</span> <span style="color:#dc2626">▮ trigger</span></p>`;
}

function percent(part: number, whole: number): string {
  return whole > 0 ? ((100 * part) / whole).toFixed(3) : '0';
}

/** The window as one stacked bar, with the budget and the trigger marked. */
function renderBar(call: InspectedCall, className = 'bar'): string {
  const segment = (part: WindowPart) => {
    const tokens = call.composition[part];
    if (tokens <= 0) return '';
    const label = `${WINDOW_PART_LABELS[part]}: ${formatNumber(tokens)} tokens`;
    return `<span class="seg" data-part="${part}" title="${e(label)}" style="width:${percent(tokens, call.contextWindow)}%;background:${COLORS[part]}"></span>`;
  };
  // The messages fill the budget from the left; what the request holds back sits at the right.
  const messageParts = WINDOW_PARTS.filter((part) => !HELD_BACK.includes(part));
  const used = messageParts.reduce((sum, part) => sum + call.composition[part], 0);
  const free = Math.max(0, call.budgetTokens - used);
  const segments = [
    ...messageParts.map(segment),
    `<span class="seg free" title="free: ${formatNumber(free)} tokens" style="width:${percent(free, call.contextWindow)}%"></span>`,
    ...HELD_BACK.map(segment),
  ];
  const description = `call ${call.number}: ${formatNumber(call.tokens)} of a ${formatNumber(call.budgetTokens)}-token budget in a ${formatNumber(call.contextWindow)}-token window`;
  return [
    `<div class="${className}" role="img" aria-label="${e(description)}">`,
    ...segments,
    `<span class="marker" title="budget ${formatNumber(call.budgetTokens)}" style="left:${percent(call.budgetTokens, call.contextWindow)}%"></span>`,
    `<span class="marker trigger" title="trigger ${formatNumber(call.triggerTokens)}" style="left:${percent(call.triggerTokens, call.contextWindow)}%"></span>`,
    '</div>',
  ].join('');
}

function appliedStrategies(call: InspectedCall): string {
  const applied = call.compaction?.strategies.filter((strategy) => strategy.applied) ?? [];
  return applied.map((strategy) => strategy.strategy).join(', ') || 'none applied';
}

function summarizerCell(call: InspectedCall): string {
  if (call.fallbacks.length > 0) {
    const failures = call.fallbacks.map(
      (fallback) =>
        `<span class="fallback" data-kind="${e(fallback.kind ?? '')}">${e(`${fallback.from} failed: ${fallback.description}`)}</span>`,
    );
    return `<span class="badge warn">fallback</span>${call.summarizer ? ` ${e(call.summarizer)}:` : ''} ${failures.join('; ')}`;
  }
  return call.summarizer ? e(call.summarizer) : '';
}

/** How the page labels where a call comes from; recorded calls, the usual case, carry no badge. */
function overflowBadge(call: InspectedCall): string {
  if (!call.overflow) return '';
  return call.overflow.outcome === 'retried'
    ? ' <span class="badge warn" title="retry after a too-long rejection">retry</span>'
    : ' <span class="badge warn" title="rejected twice">rejected</span>';
}

function originBadge(call: InspectedCall): string {
  return call.origin === 'reconstructed'
    ? ' <span class="badge rebuilt" title="rebuilt from the stored history and working state">reconstructed</span>'
    : '';
}

function timelineTitle(calls: readonly InspectedCall[], source: 'recorded' | 'replay'): string {
  if (source === 'replay') return 'replay';
  return calls.some((call) => call.origin === 'reconstructed')
    ? 'recorded calls, then the calls since the latest compaction reconstructed'
    : 'recorded calls';
}

function renderTimeline(calls: readonly InspectedCall[], source: 'recorded' | 'replay'): string {
  const rows = calls.map((call) => {
    const compaction = call.compaction;
    const cells = compaction
      ? `<td>${e(compaction.trigger)}: ${e(appliedStrategies(call))}</td><td class="n">${formatNumber(compaction.tokensBefore)} → ${formatNumber(compaction.tokensAfter)}</td>`
      : '<td></td><td></td>';
    const attributes = `${compaction ? ` class="compaction" data-compaction="${call.number}"` : ''} data-origin="${call.origin}"`;
    return `<tr${attributes}><td class="n"><a href="#call-${call.number}">${call.number}</a>${originBadge(call)}${overflowBadge(call)}</td><td class="n">${formatNumber(call.historyMessages)}</td><td class="n">${formatNumber(call.tokens)} / ${formatNumber(call.budgetTokens)}</td><td>${renderBar(call, 'bar small')}</td>${cells}<td>${summarizerCell(call)}</td></tr>`;
  });
  return [
    `<section id="timeline" data-source="${source}"><h2>Timeline (${timelineTitle(calls, source)})</h2>`,
    '<table><thead><tr><th class="n">call</th><th class="n">history messages</th><th class="n">prompt tokens / budget</th><th>window</th><th>compaction (trigger: strategies)</th><th class="n">tokens before → after</th><th>summarizer</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table></section>',
  ].join('\n');
}

function renderCalls(calls: readonly InspectedCall[]): string[] {
  let summarySince = 0;
  return calls.map((call, index) => {
    if (call.summaryChanged) summarySince = call.number;
    return renderCall(call, index === calls.length - 1, summarySince);
  });
}

function renderCall(call: InspectedCall, open: boolean, summarySince: number): string {
  const badge = call.compaction ? '<span class="badge warn">compaction</span>' : '';
  const composition = WINDOW_PARTS.map(
    (part) =>
      `<tr><td><span class="swatch" style="display:inline-block;width:10px;height:10px;background:${COLORS[part]}"></span> ${e(WINDOW_PART_LABELS[part])}</td><td class="n">${formatNumber(call.composition[part])}</td></tr>`,
  );
  return [
    `<details class="call" id="call-${call.number}" data-origin="${call.origin}"${open ? ' open' : ''}>`,
    `<summary>Call ${call.number}: ${formatNumber(call.tokens)} tokens of ${formatNumber(call.budgetTokens)}, ${call.origin === 'replay' && call.messages.length > 0 ? `${call.messages.length} prompt messages ` : ''}from ${formatNumber(call.historyMessages)} in the history${badge}${originBadge(call)}</summary>`,
    renderBar(call),
    `<table>${composition.join('')}<tr><td>window</td><td class="n">${formatNumber(call.contextWindow)}</td></tr></table>`,
    renderProviderCount(call),
    call.compaction ? renderCompaction(call) : '',
    renderSummary(call, summarySince),
    call.memoryCards.length > 0
      ? `<h4>Memory search (${call.memoryCards.filter((card) => card.injected).length} injected)</h4>${renderCards(call.memoryCards)}`
      : '',
    renderPrompt(call),
    '</details>',
  ].join('\n');
}

/** What the provider counted: the ratio the budget used, its report, and a rejection retried. */
function renderProviderCount(call: InspectedCall): string {
  const lines: string[] = [];
  const { calibration, overflow } = call;
  // Counts taken as they are, with nothing reported, need no line.
  if (
    calibration &&
    (calibration.ratio !== 1 ||
      calibration.observations > 0 ||
      calibration.providerTokens !== undefined)
  ) {
    const learned =
      calibration.observations === 0
        ? 'the prior, before any provider report'
        : `learned from ${formatNumber(calibration.observations)} provider report${calibration.observations === 1 ? '' : 's'}`;
    const reported =
      calibration.providerTokens === undefined
        ? ''
        : `; the provider counted ${formatNumber(calibration.providerTokens)} input tokens for this call`;
    lines.push(
      `<p class="calibration">Budgeted at ×${calibration.ratio} of ctxmem's count, as the provider counts (${learned})${reported}.</p>`,
    );
  }
  if (overflow) {
    const provider =
      overflow.providerTokens === undefined
        ? ''
        : `, the provider ${formatNumber(overflow.providerTokens)}`;
    const limit =
      overflow.limitTokens === undefined
        ? ''
        : ` against its limit of ${formatNumber(overflow.limitTokens)}`;
    const outcome =
      overflow.outcome === 'retried'
        ? 'This call is the one retry, prepared smaller.'
        : 'This retry was rejected too: the call failed with ContextOverflowError.';
    lines.push(
      `<p class="overflow"><span class="badge warn">retry</span> The provider rejected the previous attempt as too long (ctxmem counted ${formatNumber(overflow.countedTokens)} tokens${provider}${limit}). ${outcome}</p>`,
    );
  }
  return lines.join('\n');
}

function renderPrompt(call: InspectedCall): string {
  const messages = call.messages.map(renderMessage).join('\n');
  switch (call.origin) {
    case 'replay':
      return `<details class="prompt"><summary>Prompt as sent (${call.messages.length} messages)</summary>${messages}</details>`;
    case 'reconstructed':
      // Rebuilt: the stored working messages (shown once, in the recorded state) and the history after them.
      return `<p class="meta">Reconstructed from the store, not recorded: the prompt was the stored working messages (see the working state below) followed by the history after them; memories injected at this call are not known.</p><details class="prompt"><summary>History messages new in this call (${call.messages.length})</summary>${messages}</details>`;
    default:
      // A recorded call keeps the composition of its prompt, not the prompt itself.
      return '<p class="meta">The prompt itself is not stored with the call record; the working state below is the latest.</p>';
  }
}

function renderCompaction(call: InspectedCall): string {
  const compaction = call.compaction!;
  const rows = compaction.strategies.map(
    (strategy) =>
      `<tr><td>${e(strategy.strategy)}</td><td>${strategy.applied ? 'yes' : 'no'}</td><td class="n">${formatNumber(strategy.tokensBefore)} → ${formatNumber(strategy.tokensAfter)}</td><td class="n">${formatNumber(strategy.messagesAffected)}</td><td class="n">${strategy.summarizerCalls}</td><td>${strategy.fallback ? e(`${strategy.fallback.from}: ${strategy.fallback.description}`) : ''}</td></tr>`,
  );
  return [
    `<h4>Compaction (trigger ${e(compaction.trigger)}): ${formatNumber(compaction.tokensBefore)} → ${formatNumber(compaction.tokensAfter)} tokens, target ${formatNumber(compaction.targetTokens)}, budget ${formatNumber(compaction.budgetTokens)}</h4>`,
    '<table><thead><tr><th>strategy</th><th>applied</th><th class="n">tokens</th><th class="n">messages</th><th class="n">model calls</th><th>fallback</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
  ].join('\n');
}

function renderSummary(call: InspectedCall, since: number): string {
  if (call.summary === undefined && !call.summaryChanged) return '';
  if (!call.summaryChanged) {
    // Shown once where it changed: repeating it in every call would grow the page by calls × summary.
    return `<p class="summary">Rolling summary unchanged since <a href="#call-${since}">call ${since}</a>.</p>`;
  }
  const diff = call.summaryDiff
    .map((line) => {
      const sign = line.change === 'added' ? '+ ' : line.change === 'removed' ? '- ' : '  ';
      return `<div class="${line.change}">${e(sign + line.text)}</div>`;
    })
    .join('');
  return [
    '<details class="summary" open><summary>Rolling summary (changed in this call)</summary>',
    `<h4>Diff against the previous summary</h4><div class="diff">${diff}</div>`,
    `<h4>As sent</h4><pre>${e(call.summary ?? '(no summary: it was dropped)')}</pre>`,
    '</details>',
  ].join('\n');
}

function renderMessage(message: InspectedMessage, index: number): string {
  const kind = message.kind ? ` <span class="badge">${e(message.kind)}</span>` : '';
  const offloads = message.offloadIds.length
    ? ` reload ids: ${message.offloadIds.map((id) => `<a href="#offload-${e(id)}">${e(id)}</a>`).join(', ')}`
    : '';
  const omitted = message.omittedChars
    ? `<div class="meta">… ${formatNumber(message.omittedChars)} more characters not shown</div>`
    : '';
  const body =
    message.shownInCall === undefined
      ? `<pre>${e(message.text)}</pre>${omitted}`
      : `<div class="meta">unchanged: shown in <a href="#call-${message.shownInCall}">call ${message.shownInCall}</a></div>`;
  return `<div class="message"><div class="meta">#${index} ${e(message.role)}${kind} · ${formatNumber(message.tokens)} tokens${offloads}</div>${body}</div>`;
}

function renderOffloads(offloads: readonly InspectedOffload[]): string {
  const items = offloads.map((offload) => {
    const where = offload.firstCall > 0 ? `first in call ${offload.firstCall}` : 'recorded state';
    const original = offload.missing
      ? `<p class="removed">${e(offload.missing)}</p>`
      : `<pre class="original">${e(offload.original)}</pre>${offload.omittedChars ? `<div class="meta">… ${formatNumber(offload.omittedChars)} more characters not shown (ctxmem reload ${e(offload.id)})</div>` : ''}`;
    return [
      `<details class="offload" id="offload-${e(offload.id)}" data-offload-id="${e(offload.id)}">`,
      `<summary>${e(offload.id)} · ${e(offload.role)} · ${formatNumber(offload.originalTokens)} tokens originally · ${where}</summary>`,
      `<h4>In the prompt</h4><pre class="preview">${e(offload.preview)}</pre>`,
      `<h4>Original</h4>${original}`,
      '</details>',
    ].join('\n');
  });
  return [
    '<section id="offloads"><h2>Offloaded and compressed payloads</h2>',
    items.length > 0 ? items.join('\n') : '<p>None: nothing was offloaded.</p>',
    '</section>',
  ].join('\n');
}

function renderCards(cards: readonly InspectedMemoryCard[]): string {
  const rows = cards.map(
    (card) =>
      `<tr><td class="n">${card.score.toFixed(3)}</td><td>${card.injected ? 'yes' : 'no'}</td><td>${e(card.type)}</td><td>${e(card.content)}</td><td>${e(card.id)}</td></tr>`,
  );
  return `<table class="cards"><thead><tr><th class="n">score</th><th>injected</th><th>type</th><th>content</th><th>id</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function renderMemories(calls: readonly InspectedCall[]): string {
  const rows = calls.flatMap((call) =>
    call.memoryCards
      .filter((card) => card.injected)
      .map(
        (card) =>
          `<tr><td class="n"><a href="#call-${call.number}">${call.number}</a></td><td class="n">${card.score.toFixed(3)}</td><td>${e(card.type)}</td><td>${e(card.content)}</td></tr>`,
      ),
  );
  return [
    '<section id="memories"><h2>Injected memory cards</h2>',
    rows.length > 0
      ? `<table><thead><tr><th class="n">call</th><th class="n">score</th><th>type</th><th>content</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
      : '<p>None: no memory was injected (pass --memory-store to search a card store).</p>',
    '</section>',
  ].join('\n');
}

function renderRecorded(recorded: RecordedState): string {
  return [
    '<section id="recorded"><h2>Working state recorded in the store</h2>',
    `<p>version ${recorded.version}, compaction cycle ${recorded.cycle}; the summary covers the first ${formatNumber(recorded.summarizedCount)} of ${formatNumber(recorded.historyMessages)} stored messages.</p>`,
    `<h4>Rolling summary</h4><pre>${e(recorded.summary ?? '(no summary yet)')}</pre>`,
    `<details class="prompt"><summary>Working messages (${recorded.messages.length})</summary>${recorded.messages.map(renderMessage).join('\n')}</details>`,
    '</section>',
  ].join('\n');
}
