/**
 * Generates the bundled example conversations, deterministically (a seeded PRNG, fixed clock):
 *
 * - `agent-session.json`: a long coding-agent session in OpenAI Chat Completions format (a request
 *   body: `model`, `tools`, `messages`), about 60k tokens: preferences and constraints stated early,
 *   decisions, parallel tool calls, huge tool outputs (test logs, service logs, metrics JSON, file
 *   contents, a diff), a stretch in Chinese, and a final question that depends on the early turns.
 * - `ai-sdk-chat.json`: a small chat in AI SDK `ModelMessage` format, with one tool call.
 *
 * Run: `pnpm exec tsx examples/conversations/generate.ts [output-folder]` (default: this folder).
 * Every text here is synthetic.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

function createRandom(seed: number): () => number {
  // mulberry32: tiny, fast and good enough for synthetic logs.
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const random = createRandom(20250311);

function integer(minimum: number, maximum: number): number {
  return minimum + Math.floor(random() * (maximum - minimum + 1));
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function hex(length: number): string {
  let text = '';
  while (text.length < length) text += Math.floor(random() * 16).toString(16);
  return text;
}

function decimal(minimum: number, maximum: number, digits = 1): number {
  return Number((minimum + random() * (maximum - minimum)).toFixed(digits));
}

/** A fixed clock that only moves forward. */
function createClock(startIso: string) {
  let time = Date.parse(startIso);
  return {
    advance(minimumMs: number, maximumMs: number): string {
      time += integer(minimumMs, maximumMs);
      return new Date(time).toISOString();
    },
  };
}

const callId = () => `call_${hex(24)}`;
const accountId = () => `acct_${hex(8)}`;
const externalId = () => `tx_${hex(12)}`;

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions message builders

type OpenAiToolCall = {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
};

type OpenAiMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAiToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

const messages: OpenAiMessage[] = [];

const system = (content: string) => messages.push({ role: 'system', content });
const user = (content: string) => messages.push({ role: 'user', content });
const assistant = (content: string) => messages.push({ role: 'assistant', content });

/** One assistant message with (possibly parallel) tool calls, then one tool message per call. */
function toolCalls(
  content: string | null,
  calls: Array<{ name: string; input: Record<string, unknown>; output: string }>,
): void {
  const ids = calls.map(() => callId());
  messages.push({
    role: 'assistant',
    content,
    tool_calls: calls.map((call, index) => ({
      id: ids[index]!,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.input) },
    })),
  });
  calls.forEach((call, index) => {
    messages.push({ role: 'tool', tool_call_id: ids[index]!, content: call.output });
  });
}

// ---------------------------------------------------------------------------------------------
// Tool outputs

function directoryListing(): string {
  const entries = [
    '.github/workflows/ci.yml',
    '.github/workflows/deploy-staging.yml',
    '.github/workflows/deploy-prod.yml',
    '.pre-commit-config.yaml',
    'Dockerfile',
    'Makefile',
    'README.md',
    'alembic.ini',
    'config/settings.yaml',
    'config/logging.yaml',
    'docs/architecture.md',
    'docs/runbook-zh.md',
    'docs/adr/0001-use-postgres.md',
    'docs/adr/0002-batch-posting.md',
    'docs/adr/0003-retry-policy.md',
    'migrations/env.py',
    'pyproject.toml',
    'scripts/backfill_accounts.py',
    'scripts/replay_dead_letters.py',
    'scripts/seed_staging.sh',
  ];
  const modules = [
    'api_client',
    'batching',
    'cli',
    'config',
    'db',
    'dedupe',
    'health',
    'metrics',
    'models',
    'reconcile',
    'retry',
    'scheduler',
    'worker',
  ];
  for (const module of modules) entries.push(`src/ledger_sync/${module}.py`);
  for (const module of modules) entries.push(`tests/test_${module}.py`);
  for (let version = 1; version <= 41; version++) {
    const slug = pick([
      'add_accounts',
      'add_postings',
      'index_postings_created_at',
      'add_dead_letters',
      'add_batch_table',
      'posting_status_enum',
      'add_currency_column',
      'drop_legacy_queue',
    ]);
    entries.push(`migrations/versions/${String(version).padStart(4, '0')}_${slug}.py`);
  }
  return entries
    .sort()
    .map((path) => `${String(integer(180, 24_000)).padStart(7)}  ${path}`)
    .join('\n');
}

const README = `# ledger-sync

Moves card and bank transactions from the upstream **ledger-api** into our Postgres ledger, in
batches, exactly once. Runs as a worker deployment (\`ledger-sync-worker\`) plus a nightly
reconciliation job (\`ledger-sync-reconcile\`).

## How it works

1. The scheduler polls ledger-api every 15 s for new transactions (\`GET /v2/transactions?since=\`).
2. Transactions are grouped into batches of \`batch_size\` (default 500) per account.
3. Each batch is posted in one database transaction; the cursor advances only after commit.
4. Failures are retried with exponential backoff (\`retry.max_attempts\`, default 5); after the last
   attempt the batch goes to the \`dead_letters\` table.
5. The nightly reconcile job compares our balances with ledger-api's \`/v2/balances\` and reports
   drift to #ledger-alerts.

## Environments

| env | cluster | database | deploy |
|---|---|---|---|
| dev | local docker compose | \`ledger_dev\` | \`make up\` |
| staging | \`gke-staging-eu1\` | \`ledger-staging-db\` | merge to \`main\` (automatic) |
| prod | \`gke-prod-eu1\` | \`ledger-prod-db\` | manual approval in the deploy-prod workflow |

Never run ad-hoc commands against prod: prod changes go through the deploy-prod workflow and a
second reviewer.

## Development

\`\`\`bash
make up            # postgres + fake ledger-api
make test          # pytest with coverage
make lint          # ruff + mypy --strict
alembic upgrade head
\`\`\`

Python 3.12, Poetry for dependencies. Tests use a throwaway database per session
(\`pytest-postgresql\`). Time-dependent tests use \`freezegun\`.

## Configuration

All settings live in \`config/settings.yaml\` with per-environment overrides from environment
variables (\`LEDGER_SYNC__<SECTION>__<KEY>\`). Secrets come from the secret manager, never from
the file.

## Operational notes

- Lag above 5 minutes pages the on-call engineer.
- The worker is horizontally scalable; accounts are sharded by \`hash(account_id) % shards\`.
- \`scripts/replay_dead_letters.py\` replays dead letters after a fix (staging first, always).
`;

const SETTINGS = `# config/settings.yaml — defaults; environment variables override per environment.
service:
  name: ledger-sync
  shards: 8
  poll_interval_seconds: 15
  timezone: Europe/Berlin          # used for the nightly reconcile schedule only

ledger_api:
  base_url: https://ledger-api.internal/v2
  timeout_seconds: 10
  page_size: 1000

batching:
  batch_size: 500
  max_batch_age_seconds: 30
  flush_on_shutdown: true

retry:
  max_attempts: 5
  base_delay_ms: 200
  max_delay_ms: 10000
  jitter: full
  retry_on:
    - timeout
    - connection_reset
    - http_502
    - http_503
    - http_504

database:
  pool_min: 2
  pool_max: 20
  statement_timeout_ms: 15000
  environments:
    dev:
      host: localhost
      name: ledger_dev
    staging:
      host: ledger-staging-db.internal
      name: ledger
    prod:
      host: ledger-prod-db.internal
      name: ledger
      read_only_for_humans: true

dedupe:
  enabled: false                   # TODO(ledger-412): turn on once the unique index exists
  window_minutes: 60

reconcile:
  cron: "0 2 * * *"
  drift_threshold_cents: 100
  report_channel: "#ledger-alerts"

metrics:
  exporter: prometheus
  port: 9102
  histogram_buckets_ms: [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000]

logging:
  level: INFO
  format: json
  include_payloads: false
`;

const RECONCILE_PY = `"""Nightly reconciliation: compares our balances with ledger-api's and reports drift."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from ledger_sync.api_client import LedgerApiClient
from ledger_sync.db import Database
from ledger_sync.metrics import DRIFT_GAUGE, RECONCILE_DURATION

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Drift:
    account_id: str
    ours_cents: int
    theirs_cents: int

    @property
    def delta_cents(self) -> int:
        return self.ours_cents - self.theirs_cents


def business_day(now: datetime | None = None) -> date:
    """The business day being reconciled: yesterday, in local time."""
    now = now or datetime.now()
    return (now - timedelta(days=1)).date()


def window_for(day: date) -> tuple[datetime, datetime]:
    start = datetime(day.year, day.month, day.day)
    return start, start + timedelta(days=1)


class Reconciler:
    def __init__(self, db: Database, api: LedgerApiClient, threshold_cents: int = 100) -> None:
        self._db = db
        self._api = api
        self._threshold_cents = threshold_cents

    def run(self, now: datetime | None = None) -> list[Drift]:
        day = business_day(now)
        start, end = window_for(day)
        log.info("reconcile.start", extra={"day": day.isoformat()})
        with RECONCILE_DURATION.time():
            ours = self._db.balances_between(start, end)
            theirs = self._api.balances(day)
        drifts = []
        for account_id, ours_cents in ours.items():
            theirs_cents = theirs.get(account_id, 0)
            if abs(ours_cents - theirs_cents) > self._threshold_cents:
                drifts.append(Drift(account_id, ours_cents, theirs_cents))
        for account_id in theirs.keys() - ours.keys():
            drifts.append(Drift(account_id, 0, theirs[account_id]))
        DRIFT_GAUGE.set(len(drifts))
        log.info("reconcile.done", extra={"day": day.isoformat(), "drifts": len(drifts)})
        return sorted(drifts, key=lambda drift: abs(drift.delta_cents), reverse=True)

    def report(self, drifts: list[Drift]) -> str:
        if not drifts:
            return "No drift above threshold."
        lines = [f"{len(drifts)} accounts drift above {self._threshold_cents} cents:"]
        for drift in drifts[:20]:
            amount = Decimal(drift.delta_cents) / 100
            lines.append(f"- {drift.account_id}: {amount:+.2f} EUR")
        if len(drifts) > 20:
            lines.append(f"... and {len(drifts) - 20} more")
        return "\\n".join(lines)
`;

function pytestOutput(): string {
  const lines = [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.12.2, pytest-8.1.1, pluggy-1.4.0',
    'rootdir: /workspace/ledger-sync',
    'configfile: pyproject.toml',
    'plugins: postgresql-6.0.0, cov-5.0.0, freezegun-0.4.2, xdist-3.5.0',
    'collected 412 items',
    '',
  ];
  const modules = [
    'api_client',
    'batching',
    'config',
    'db',
    'dedupe',
    'health',
    'metrics',
    'models',
    'reconcile',
    'retry',
    'scheduler',
    'worker',
  ];
  const verbs = ['handles', 'rejects', 'retries', 'parses', 'posts', 'skips', 'groups', 'reports'];
  const objects = [
    'empty_page',
    'duplicate_transaction',
    'negative_amount',
    'unknown_currency',
    'timeout',
    'partial_batch',
    'large_batch',
    'cursor_gap',
    'utf8_description',
    'closed_account',
    'dst_boundary',
    'leap_day',
  ];
  let failed = 0;
  for (const module of modules) {
    for (let index = 0; index < 34; index++) {
      const name = `test_${pick(verbs)}_${pick(objects)}_${index}`;
      const fails =
        (module === 'reconcile' && index === 7) || (module === 'scheduler' && index === 19);
      const outcome = fails ? 'FAILED' : pick(['PASSED', 'PASSED', 'PASSED', 'PASSED', 'PASSED']);
      if (fails) failed++;
      const percent = Math.min(100, Math.round(((lines.length - 7) / 408) * 100));
      lines.push(
        `tests/test_${module}.py::${name} ${outcome}${' '.repeat(8)}[${String(percent).padStart(3)}%]`,
      );
    }
  }
  lines.push(
    '',
    '=================================== FAILURES ===================================',
    '________________ test_reconcile_business_day_near_midnight_utc _________________',
    '',
    '    @freeze_time("2025-03-10 23:30:00", tz_offset=0)',
    '    def test_reconcile_business_day_near_midnight_utc():',
    '        reconciler = Reconciler(FakeDb(), FakeApi(), threshold_cents=100)',
    '>       assert business_day() == date(2025, 3, 9)',
    'E       AssertionError: assert datetime.date(2025, 3, 10) == datetime.date(2025, 3, 9)',
    'E        +  where datetime.date(2025, 3, 10) = business_day()',
    '',
    'tests/test_reconcile.py:88: AssertionError',
    '----------------------------- Captured log call ------------------------------',
    'INFO     ledger_sync.reconcile:reconcile.py:47 reconcile.start',
    '_______________ test_scheduler_window_crosses_dst_boundary ________________',
    '',
    '    @freeze_time("2025-03-30 00:45:00")',
    '    def test_scheduler_window_crosses_dst_boundary():',
    '        start, end = window_for(date(2025, 3, 30))',
    '>       assert (end - start) == timedelta(hours=23)',
    'E       AssertionError: assert datetime.timedelta(days=1) == datetime.timedelta(seconds=82800)',
    '',
    'tests/test_scheduler.py:141: AssertionError',
    '=============================== warnings summary ===============================',
  );
  for (let index = 0; index < 40; index++) {
    lines.push(
      `tests/test_${pick(modules)}.py::test_${pick(verbs)}_${pick(objects)}_${integer(0, 33)}`,
      `  /workspace/ledger-sync/src/ledger_sync/${pick(modules)}.py:${integer(10, 220)}: DeprecationWarning: datetime.datetime.utcnow() is deprecated and scheduled for removal in a future version. Use timezone-aware objects to represent datetimes in UTC: datetime.datetime.now(datetime.UTC).`,
      `    now = datetime.utcnow()`,
      '',
    );
  }
  lines.push(
    '---------- coverage: platform linux, python 3.12.2-final-0 -----------',
    'Name                                Stmts   Miss  Cover',
    '-------------------------------------------------------',
  );
  for (const module of modules) {
    const statements = integer(40, 260);
    const missed = integer(0, Math.floor(statements / 6));
    lines.push(
      `src/ledger_sync/${module}.py`.padEnd(36) +
        String(statements).padStart(5) +
        String(missed).padStart(7) +
        `${Math.round((1 - missed / statements) * 100)}%`.padStart(7),
    );
  }
  lines.push(
    '',
    '=========================== short test summary info ============================',
    'FAILED tests/test_reconcile.py::test_reconcile_business_day_near_midnight_utc - AssertionError',
    'FAILED tests/test_scheduler.py::test_scheduler_window_crosses_dst_boundary - AssertionError',
    `============ ${failed} failed, ${412 - failed} passed, 160 warnings in 48.31s =============`,
  );
  return lines.join('\n');
}

function stagingLogs(): string {
  const clock = createClock('2025-03-11T08:00:00.000Z');
  const accounts = Array.from({ length: 30 }, accountId);
  const lines: string[] = [];
  const retried: Array<{ account: string; transaction: string }> = [];
  for (let index = 0; index < 260; index++) {
    const time = clock.advance(40, 2400);
    const pod = `ledger-sync-worker-7c9f${pick(['d', 'e', 'f'])}-${hex(5)}`;
    const roll = random();
    const account = pick(accounts);
    const transaction = externalId();
    let entry: Record<string, unknown>;
    if (roll < 0.62) {
      entry = {
        ts: time,
        level: 'INFO',
        pod,
        event: 'posting.committed',
        account_id: account,
        external_id: transaction,
        batch_id: `b_${hex(10)}`,
        amount_cents: integer(-250_000, 900_000),
        latency_ms: integer(8, 340),
      };
    } else if (roll < 0.74) {
      retried.push({ account, transaction });
      entry = {
        ts: time,
        level: 'WARN',
        pod,
        event: 'ledger_api.timeout',
        account_id: account,
        external_id: transaction,
        attempt: integer(1, 3),
        max_attempts: 5,
        timeout_s: 10,
        note: 'commit acknowledged by db but ack to ledger-api timed out; retrying batch',
      };
    } else if (roll < 0.84 && retried.length > 0) {
      // The bug: the retried batch is committed a second time.
      const first = retried.shift()!;
      entry = {
        ts: time,
        level: 'INFO',
        pod,
        event: 'posting.committed',
        account_id: first.account,
        external_id: first.transaction,
        batch_id: `b_${hex(10)}`,
        amount_cents: integer(-250_000, 900_000),
        latency_ms: integer(8, 340),
        attempt: 2,
      };
    } else if (roll < 0.93) {
      entry = {
        ts: time,
        level: 'INFO',
        pod,
        event: 'scheduler.poll',
        cursor: `${hex(16)}`,
        fetched: integer(0, 1000),
        lag_seconds: decimal(0.2, 42),
      };
    } else if (roll < 0.97) {
      entry = {
        ts: time,
        level: 'INFO',
        pod,
        event: 'health.ok',
        db_pool_in_use: integer(1, 20),
        db_pool_max: 20,
        rss_mb: integer(180, 420),
      };
    } else {
      entry = {
        ts: time,
        level: 'ERROR',
        pod,
        event: 'reconcile.drift',
        account_id: account,
        delta_cents: integer(101, 90_000),
        hint: 'duplicate postings suspected',
      };
    }
    lines.push(JSON.stringify(entry));
  }
  return lines.join('\n');
}

function stagingMetrics(): string {
  const clock = createClock('2025-03-11T08:00:00.000Z');
  const series = Array.from({ length: 60 }, () => {
    const posted = integer(300, 2400);
    return {
      minute: clock.advance(60_000, 60_000),
      posted,
      retried: integer(0, Math.floor(posted / 12)),
      duplicates: integer(0, 18),
      dead_lettered: integer(0, 2),
      latency_ms: { p50: integer(12, 40), p95: integer(80, 400), p99: integer(300, 2600) },
      ledger_api_timeouts: integer(0, 30),
    };
  });
  const accounts = Array.from({ length: 40 }, () => ({
    account_id: accountId(),
    postings: integer(200, 9000),
    duplicates: integer(0, 60),
    duplicate_amount_cents: integer(0, 2_400_000),
    last_posted_at: clock.advance(100, 9000),
  })).sort((left, right) => right.duplicates - left.duplicates);
  return JSON.stringify(
    {
      service: 'ledger-sync',
      environment: 'staging',
      window: { from: '2025-03-11T08:00:00Z', to: '2025-03-11T09:00:00Z' },
      totals: {
        posted: series.reduce((sum, point) => sum + point.posted, 0),
        retried: series.reduce((sum, point) => sum + point.retried, 0),
        duplicates: series.reduce((sum, point) => sum + point.duplicates, 0),
      },
      series,
      top_accounts_by_duplicates: accounts,
    },
    null,
    2,
  );
}

const MIGRATION = `"""Unique posting per (account_id, external_id), so a retried batch cannot post twice.

Revision ID: 0042_unique_posting_external_id
Revises: 0041_drop_legacy_queue
"""

from alembic import op

revision = "0042_unique_posting_external_id"
down_revision = "0041_drop_legacy_queue"


def upgrade() -> None:
    # Existing duplicates must go first, or the index cannot be built. Keep the oldest row.
    op.execute(
        """
        DELETE FROM postings p
        USING postings q
        WHERE p.account_id = q.account_id
          AND p.external_id = q.external_id
          AND p.id > q.id
        """
    )
    # CONCURRENTLY keeps the table writable while the index builds.
    with op.get_context().autocommit_block():
        op.execute(
            "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ux_postings_account_external "
            "ON postings (account_id, external_id)"
        )


def downgrade() -> None:
    with op.get_context().autocommit_block():
        op.execute("DROP INDEX CONCURRENTLY IF EXISTS ux_postings_account_external")
`;

function alembicOutput(): string {
  return [
    '$ kubectl --context gke-staging-eu1 -n ledger exec deploy/ledger-sync-worker -- alembic upgrade head',
    'INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.',
    'INFO  [alembic.runtime.migration] Will assume transactional DDL.',
    'INFO  [alembic.runtime.migration] Running upgrade 0041_drop_legacy_queue -> 0042_unique_posting_external_id, Unique posting per (account_id, external_id)',
    'INFO  [alembic.runtime.migration] DELETE 1873',
    'INFO  [alembic.runtime.migration] CREATE INDEX (concurrently) ux_postings_account_external ... done in 41.7s',
    '',
    '$ kubectl --context gke-staging-eu1 -n ledger exec deploy/ledger-sync-worker -- psql -c "\\d postings"',
    '                          Table "public.postings"',
    '    Column    |           Type           | Nullable |      Default',
    '--------------+--------------------------+----------+--------------------',
    ' id           | bigint                   | not null | generated always',
    ' account_id   | text                     | not null |',
    ' external_id  | text                     | not null |',
    ' batch_id     | text                     | not null |',
    ' amount_cents | bigint                   | not null |',
    " currency     | character(3)             | not null | 'EUR'::bpchar",
    " status       | posting_status           | not null | 'posted'",
    ' created_at   | timestamp with time zone | not null | now()',
    'Indexes:',
    '    "postings_pkey" PRIMARY KEY, btree (id)',
    '    "ix_postings_created_at" btree (created_at)',
    '    "ux_postings_account_external" UNIQUE, btree (account_id, external_id)',
  ].join('\n');
}

const RUNBOOK_ZH_HEAD = `# ledger-sync 运维手册

## 1. 服务概述

ledger-sync 负责把上游 ledger-api 的交易同步到我们的 Postgres 账本。服务包含两个部分：
常驻的 worker（按账户分片，默认 8 个分片）和每晚两点运行的对账任务。

## 2. 部署规则

- staging：合并到 main 分支后自动部署，可以随时回滚。
- prod：必须通过 deploy-prod 工作流，并由第二位审核人批准。
- **周五不部署生产环境**，除非是 P1 故障修复，并且需要值班负责人书面同意。
- 任何数据库迁移必须先在 staging 运行至少 24 小时，确认没有锁表和性能回退。
- 迁移脚本必须可回滚（提供 downgrade），并且使用 CONCURRENTLY 创建索引。

## 3. 告警与处理

| 告警 | 阈值 | 处理方式 |
|---|---|---|
| 同步延迟 | 超过 5 分钟 | 检查 ledger-api 状态页，必要时扩容 worker |
| 死信数量 | 每小时超过 50 条 | 查看 dead_letters 表，修复后用 replay 脚本重放 |
| 对账差异 | 超过 100 分 | 在 #ledger-alerts 频道通报，检查重复入账 |
| 数据库连接池 | 使用率超过 90% | 检查慢查询，调低 batch_size |

## 4. 批处理参数

批处理大小（batch_size）影响吞吐量和单个事务的锁持有时间。经验值如下：
`;

function runbookZh(): string {
  const rows = [
    '| batch_size | 吞吐量（笔/秒） | p95 事务耗时（毫秒） | 锁等待次数 | 备注 |',
    '|---|---|---|---|---|',
  ];
  for (const size of [50, 100, 150, 200, 250, 300, 400, 500, 750, 1000]) {
    const note =
      size === 200
        ? '推荐值：吞吐和锁等待的平衡点'
        : size === 500
          ? '当前默认值，高峰期锁等待明显'
          : pick(['—', '仅用于回填', '不建议', '测试环境常用']);
    rows.push(
      `| ${size} | ${integer(size * 2, size * 4)} | ${integer(size / 2, size * 2)} | ${integer(0, size / 5)} | ${note} |`,
    );
  }
  const tail = `

## 5. 常见问题

**问：重复入账是怎么产生的？**
答：当数据库已经提交，但向 ledger-api 确认时超时，worker 会重试整个批次。如果没有唯一约束，
同一笔交易就会被写入两次。解决办法是在 (account_id, external_id) 上建立唯一索引，并在插入时
使用 ON CONFLICT DO NOTHING。

**问：如何重放死信？**
答：先在 staging 执行 \`python scripts/replay_dead_letters.py --env staging --since 2h --dry-run\`，
确认数量无误后去掉 --dry-run。生产环境的重放必须由值班负责人执行。

**问：对账任务的时区是什么？**
答：业务日按欧洲/柏林时间计算，但数据库中的时间戳一律存储为 UTC。代码中禁止使用
\`datetime.utcnow()\` 和不带时区的 \`datetime.now()\`。

## 6. 联系人

- 服务负责人：支付平台组
- 值班：PagerDuty 轮值表 "ledger-oncall"
- 上游 ledger-api：核心账务组（#core-ledger）
`;
  return `${RUNBOOK_ZH_HEAD}\n${rows.join('\n')}${tail}`;
}

const BENCH_SCRIPT = `"""Measures posting throughput and lock waits for several batch sizes on staging (read-only replica for reads)."""

import argparse
import json
import statistics
import time

from ledger_sync.batching import chunk
from ledger_sync.db import Database
from ledger_sync.fixtures import synthetic_transactions


def run(db: Database, batch_size: int, transactions: int) -> dict:
    durations = []
    lock_waits = 0
    started = time.perf_counter()
    for batch in chunk(synthetic_transactions(transactions, seed=7), batch_size):
        t0 = time.perf_counter()
        result = db.post_batch(batch, on_conflict="do_nothing", schema="bench")
        durations.append((time.perf_counter() - t0) * 1000)
        lock_waits += result.lock_waits
    elapsed = time.perf_counter() - started
    durations.sort()
    return {
        "batch_size": batch_size,
        "transactions": transactions,
        "throughput_per_s": round(transactions / elapsed, 1),
        "p50_ms": round(statistics.median(durations), 1),
        "p95_ms": round(durations[int(len(durations) * 0.95) - 1], 1),
        "lock_waits": lock_waits,
        "samples_ms": [round(value, 1) for value in durations[:40]],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", choices=["dev", "staging"], required=True)
    parser.add_argument("--sizes", default="100,200,300,500")
    parser.add_argument("--transactions", type=int, default=20000)
    args = parser.parse_args()
    db = Database.connect(args.env)
    results = [run(db, int(size), args.transactions) for size in args.sizes.split(",")]
    print(json.dumps({"env": args.env, "results": results}, indent=2))


if __name__ == "__main__":
    main()
`;

function benchmarkOutput(): string {
  const results = [100, 200, 300, 500].map((size) => {
    const samples = Array.from({ length: 40 }, () => decimal(size / 12, size / 3));
    return {
      batch_size: size,
      transactions: 20000,
      throughput_per_s: decimal(size * 3.2, size * 3.9),
      p50_ms: decimal(size / 8, size / 6),
      p95_ms: decimal(size / 3, size / 1.5),
      lock_waits: size <= 200 ? integer(0, 3) : integer(20, 140),
      samples_ms: samples,
    };
  });
  return `$ python scripts/bench_batch_size.py --env staging --sizes 100,200,300,500\n${JSON.stringify({ env: 'staging', results }, null, 2)}`;
}

function gitDiff(): string {
  const lines = [
    ' migrations/versions/0042_unique_posting_external_id.py |  38 ++++++',
    ' config/settings.yaml                                  |   4 +-',
    ' scripts/bench_batch_size.py                           |  52 +++++++++',
    ' src/ledger_sync/db.py                                 |  21 +++-',
    ' src/ledger_sync/reconcile.py                          |  17 ++--',
    ' src/ledger_sync/scheduler.py                          |   9 +-',
    ' tests/test_db.py                                      |  44 +++++++',
    ' tests/test_reconcile.py                               |  31 ++++-',
    ' 8 files changed, 191 insertions(+), 25 deletions(-)',
    '',
    'diff --git a/config/settings.yaml b/config/settings.yaml',
    '--- a/config/settings.yaml',
    '+++ b/config/settings.yaml',
    '@@ -16,7 +16,7 @@ ledger_api:',
    ' batching:',
    '-  batch_size: 500',
    '+  batch_size: 200',
    '   max_batch_age_seconds: 30',
    '@@ -52,7 +52,7 @@ database:',
    ' dedupe:',
    '-  enabled: false                   # TODO(ledger-412): turn on once the unique index exists',
    '+  enabled: true',
    '   window_minutes: 60',
    'diff --git a/src/ledger_sync/reconcile.py b/src/ledger_sync/reconcile.py',
    '--- a/src/ledger_sync/reconcile.py',
    '+++ b/src/ledger_sync/reconcile.py',
    '@@ -4,7 +4,8 @@ from __future__ import annotations',
    ' import logging',
    ' from dataclasses import dataclass',
    '-from datetime import date, datetime, timedelta',
    '+from datetime import UTC, date, datetime, timedelta',
    '+from zoneinfo import ZoneInfo',
    ' from decimal import Decimal',
    '@@ -25,14 +26,17 @@ class Drift:',
    '-def business_day(now: datetime | None = None) -> date:',
    '-    """The business day being reconciled: yesterday, in local time."""',
    '-    now = now or datetime.now()',
    '-    return (now - timedelta(days=1)).date()',
    '+BUSINESS_TZ = ZoneInfo("Europe/Berlin")',
    '+',
    '+',
    '+def business_day(now: datetime | None = None) -> date:',
    '+    """The business day being reconciled: yesterday in Berlin, whatever the host clock says."""',
    '+    now = (now or datetime.now(UTC)).astimezone(BUSINESS_TZ)',
    '+    return (now - timedelta(days=1)).date()',
    ' ',
    ' ',
    '-def window_for(day: date) -> tuple[datetime, datetime]:',
    '-    start = datetime(day.year, day.month, day.day)',
    '-    return start, start + timedelta(days=1)',
    '+def window_for(day: date) -> tuple[datetime, datetime]:',
    '+    """The UTC bounds of a Berlin business day (23 or 25 hours on DST changes)."""',
    '+    start = datetime(day.year, day.month, day.day, tzinfo=BUSINESS_TZ)',
    '+    end = start + timedelta(days=1)',
    '+    return start.astimezone(UTC), end.replace(tzinfo=BUSINESS_TZ).astimezone(UTC)',
    'diff --git a/src/ledger_sync/db.py b/src/ledger_sync/db.py',
    '--- a/src/ledger_sync/db.py',
    '+++ b/src/ledger_sync/db.py',
    '@@ -88,12 +88,21 @@ class Database:',
    '     def post_batch(self, batch: Sequence[Transaction]) -> PostResult:',
    '-        rows = [row_for(transaction) for transaction in batch]',
    '-        with self._pool.connection() as connection, connection.transaction():',
    '-            connection.execute(INSERT_POSTINGS, rows)',
    '-        return PostResult(posted=len(rows), lock_waits=0)',
    '+        rows = [row_for(transaction) for transaction in batch]',
    '+        with self._pool.connection() as connection, connection.transaction():',
    '+            # ON CONFLICT makes a retried batch idempotent: rows already posted are skipped.',
    '+            cursor = connection.execute(',
    '+                INSERT_POSTINGS + " ON CONFLICT (account_id, external_id) DO NOTHING",',
    '+                rows,',
    '+            )',
    '+            skipped = len(rows) - cursor.rowcount',
    '+        if skipped:',
    '+            DUPLICATES_SKIPPED.inc(skipped)',
    '+            log.info("posting.duplicates_skipped", extra={"count": skipped})',
    '+        return PostResult(posted=cursor.rowcount, skipped=skipped, lock_waits=0)',
  ];
  for (let index = 0; index < 60; index++) {
    const account = accountId();
    lines.push(
      `+    ("${account}", "${externalId()}", ${integer(-90_000, 900_000)}),  # case ${index}: ${pick(['retry after timeout', 'same batch twice', 'replayed dead letter', 'concurrent shards'])}`,
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The agent session

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'list_directory',
      description: 'Lists files under a path with their sizes in bytes.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, recursive: { type: 'boolean' } },
        required: ['path'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Reads a text file from the workspace.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Creates or overwrites a text file in the workspace.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'run_command',
      description:
        'Runs a shell command in the workspace and returns its combined output. Commands against production are refused.',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string' }, timeout_seconds: { type: 'number' } },
        required: ['command'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'http_get',
      description: 'GET request to an internal URL; returns the body.',
      parameters: {
        type: 'object',
        properties: { url: { type: 'string' } },
        required: ['url'],
      },
    },
  },
];

system(`You are Forge, a senior software engineer working as a coding agent inside the user's repository.

Workspace: /workspace/ledger-sync (a Python 3.12 service). You can list, read and write files, run shell commands, and call internal HTTP endpoints through the provided tools.

Rules:
- Read before you write: look at the relevant files and tests before changing code.
- Prefer small, reviewable changes; explain each decision in one or two sentences.
- Run the tests after every change and report failures honestly.
- Never print secrets. Configuration secrets come from the secret manager.
- Ask before any destructive or irreversible action (dropping data, force pushes, migrations outside dev).
- When several independent reads are needed, issue the tool calls in parallel.
- Answer in the language the user writes in.`);

user(`Hi Forge. I'm Mia, I own ledger-sync. A few things before we start, please keep them in mind for the whole session:

1. I prefer Python for any scripts or tooling you write — no bash one-liners longer than a line, no Node.
2. Never touch prod. Not even read-only queries. Staging (gke-staging-eu1) is fine for anything, dev too.
3. Keep commits small, one concern each, and write the commit message as "why", not "what".
4. We're on Postgres 15; don't use features from 16.

Today's problems: CI has been red since Monday (two failing tests), and the on-call saw reconcile drift alerts on staging that look like duplicate postings. Can you take a look at the repo first?`);

toolCalls('Sure — let me get oriented first. Reading the layout and the README in parallel.', [
  {
    name: 'list_directory',
    input: { path: '.', recursive: true },
    output: directoryListing(),
  },
  { name: 'read_file', input: { path: 'README.md' }, output: README },
]);

toolCalls(
  'The worker posts in batches and retries on timeouts; dedupe is configured but disabled. Let me look at the settings, the reconcile module and the failing tests at the same time.',
  [
    { name: 'read_file', input: { path: 'config/settings.yaml' }, output: SETTINGS },
    { name: 'read_file', input: { path: 'src/ledger_sync/reconcile.py' }, output: RECONCILE_PY },
    {
      name: 'run_command',
      input: { command: 'make test', timeout_seconds: 600 },
      output: pytestOutput(),
    },
  ],
);

assistant(`Here is what I found.

**CI failures (2 of 412 tests):** both are time-zone bugs, not flaky infrastructure.
- \`business_day()\` uses the host's naive local time. CI runs in UTC, so at 23:30 UTC (00:30 in Berlin) it computes the wrong business day.
- \`window_for()\` builds naive midnight-to-midnight windows, so a DST day is always 24 hours instead of 23 or 25.

**Proposal:** make every datetime timezone-aware: compute the business day in Europe/Berlin (the business calendar), and store and compare in UTC. This also removes the 160 \`utcnow()\` deprecation warnings over time.

**Duplicates on staging:** not looked at yet. \`dedupe.enabled: false\` with a TODO about a missing unique index is suspicious — I'll check the staging logs and metrics next.

Shall I go ahead with the UTC/Berlin change?`);

user(
  `Yes, go with timezone-aware datetimes: Berlin for the business day, UTC everywhere else. That's a decision, please note it. And yes, check the duplicates on staging.`,
);

toolCalls(
  'Decision noted. Pulling the last hour of staging worker logs and the metrics endpoint in parallel.',
  [
    {
      name: 'run_command',
      input: {
        command:
          'kubectl --context gke-staging-eu1 -n ledger logs deploy/ledger-sync-worker --since=1h --all-containers',
        timeout_seconds: 120,
      },
      output: stagingLogs(),
    },
    {
      name: 'http_get',
      input: { url: 'https://ledger-sync.staging.internal/internal/metrics?window=1h&format=json' },
      output: stagingMetrics(),
    },
  ],
);

assistant(`Found the duplicate source. The pattern in the logs is always the same:

1. \`posting.committed\` is written to the database,
2. the acknowledgement to ledger-api times out (\`ledger_api.timeout\`, "commit acknowledged by db but ack to ledger-api timed out"),
3. the worker retries the **whole batch**, and the same \`external_id\` is committed again with \`attempt: 2\`.

Nothing in the schema stops it: there is no unique constraint on \`(account_id, external_id)\`, which is exactly what the \`dedupe\` TODO (ledger-412) is waiting for. The metrics agree: duplicates track \`ledger_api_timeouts\` minute by minute, and the drift alerts name the same accounts as \`top_accounts_by_duplicates\`.

**Proposed fix (two parts):**
1. A migration that removes existing duplicates (keeping the oldest row) and adds a unique index on \`(account_id, external_id)\`, built \`CONCURRENTLY\` so the table stays writable.
2. \`INSERT ... ON CONFLICT (account_id, external_id) DO NOTHING\` in \`post_batch\`, so a retried batch becomes idempotent, plus a counter for skipped duplicates.

The migration deletes rows, so I'm asking first: may I write it and run it on staging?`);

user(
  `Good analysis. Yes: write the migration and run it on staging only. Do NOT run it against prod — prod goes through the deploy-prod workflow after review, and not before it has soaked on staging for 24h. ON CONFLICT DO NOTHING is fine (PG15 supports it).`,
);

toolCalls('Writing the migration, then applying it on staging.', [
  {
    name: 'write_file',
    input: { path: 'migrations/versions/0042_unique_posting_external_id.py', content: MIGRATION },
    output: 'Wrote 1187 bytes to migrations/versions/0042_unique_posting_external_id.py',
  },
]);

toolCalls(null, [
  {
    name: 'run_command',
    input: {
      command:
        'kubectl --context gke-staging-eu1 -n ledger exec deploy/ledger-sync-worker -- alembic upgrade head && kubectl --context gke-staging-eu1 -n ledger exec deploy/ledger-sync-worker -- psql -c "\\d postings"',
      timeout_seconds: 300,
    },
    output: alembicOutput(),
  },
]);

assistant(
  `Migration 0042 is applied on **staging only**: 1,873 duplicate rows removed, and \`ux_postings_account_external\` is in place (built concurrently in 41.7 s). Prod is untouched. Next I'll add \`ON CONFLICT DO NOTHING\` to \`post_batch\` and turn \`dedupe.enabled\` on.`,
);

user(
  `接下来我们用中文交流吧，我的同事王磊也会看这段记录。先帮我读一下 docs/runbook-zh.md，看看批处理大小有没有推荐值。`,
);

toolCalls('好的，我来读一下运维手册。', [
  { name: 'read_file', input: { path: 'docs/runbook-zh.md' }, output: runbookZh() },
]);

assistant(`运维手册里的要点：

1. **批处理大小**：手册推荐 200，理由是吞吐量和锁等待之间的平衡；当前默认值 500 在高峰期锁等待明显。
2. **部署规则**：周五不部署生产环境（P1 故障除外）；迁移必须先在 staging 运行至少 24 小时；迁移必须可回滚，索引必须用 CONCURRENTLY 创建——我们的 0042 迁移都满足。
3. **重复入账**：手册的 FAQ 描述的原因和我们在日志里看到的一致，建议的解决方案（唯一索引 + ON CONFLICT DO NOTHING）也和我们的方案相同。
4. **时区**：业务日按柏林时间，数据库存 UTC，禁止 \`datetime.utcnow()\`——和刚才的决定一致。

要不要把 batch_size 从 500 改成 200？改之前我可以先在 staging 上做一次基准测试来确认。`);

user(
  `先做基准测试。脚本用 Python 写，只在 staging 上跑。另外提醒一下：这周五之前不能部署生产，王磊周四要做发布评审。`,
);

toolCalls(
  '明白：基准测试脚本用 Python，只在 staging 运行；周五前不部署生产，周四发布评审。先写脚本：',
  [
    {
      name: 'write_file',
      input: { path: 'scripts/bench_batch_size.py', content: BENCH_SCRIPT },
      output: 'Wrote 1714 bytes to scripts/bench_batch_size.py',
    },
  ],
);

toolCalls(null, [
  {
    name: 'run_command',
    input: {
      command: 'python scripts/bench_batch_size.py --env staging --sizes 100,200,300,500',
      timeout_seconds: 900,
    },
    output: benchmarkOutput(),
  },
]);

assistant(`基准测试结果（staging，每组 20000 笔）：batch_size 为 100 和 200 时几乎没有锁等待，300 和 500 时锁等待明显上升；200 的吞吐量接近 300，p95 事务耗时只有 500 的一半左右。

**决定**：batch_size 改为 200（与运维手册一致）。这个改动只修改配置，会随下一次 staging 部署生效。`);

user(
  `好，就用 200。OK, switching back to English for the PR. Please make the code changes we agreed on, run the tests, and show me the diff.`,
);

toolCalls(
  'Applying the agreed changes: timezone-aware reconcile/scheduler, ON CONFLICT in post_batch, dedupe on, batch_size 200. Then tests and diff.',
  [
    {
      name: 'run_command',
      input: { command: 'make test', timeout_seconds: 600 },
      output: [
        '============================= test session starts ==============================',
        'platform linux -- Python 3.12.2, pytest-8.1.1, pluggy-1.4.0',
        'collected 419 items',
        '',
        ...Array.from(
          { length: 24 },
          (_, index) =>
            `tests/test_${pick(['db', 'reconcile', 'scheduler', 'worker', 'dedupe'])}.py ${'.'.repeat(integer(12, 40))}  [${String(Math.round(((index + 1) / 24) * 100)).padStart(3)}%]`,
        ),
        '',
        '======================= 419 passed, 12 warnings in 51.07s =======================',
      ].join('\n'),
    },
    { name: 'run_command', input: { command: 'git diff --stat && git diff' }, output: gitDiff() },
  ],
);

assistant(`All 419 tests pass (7 new: idempotent re-posting, DST windows, midnight-UTC business day). The 12 remaining warnings come from a third-party library. The diff is above: 8 files, +191/−25.

Suggested commits, one concern each:
1. "Compute the business day in Berlin time so reconcile stops depending on the host clock"
2. "Make batch posting idempotent so a retried batch cannot post twice" (migration 0042 + ON CONFLICT + dedupe on)
3. "Post in batches of 200 to cut lock waits at peak (benchmark in scripts/)"`);

user(
  `Before I open the PR: summarize for the description what we changed and why, list every constraint and preference I gave you at the start of the session (and any we added later), and tell me what still has to happen before this can reach prod.`,
);

const agentSession = { model: 'gpt-4o-2024-08-06', tools: TOOLS, messages };

// ---------------------------------------------------------------------------------------------
// A small AI SDK chat (ModelMessage[])

const aiSdkChat = [
  {
    role: 'system',
    content: 'You are a helpful assistant for a small bakery. Be brief and friendly.',
  },
  {
    role: 'user',
    content: [
      {
        type: 'text',
        text: 'Hi! Do you have anything gluten-free today? I am allergic to nuts too.',
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me check today’s menu for you.' },
      {
        type: 'tool-call',
        toolCallId: 'call_menu_1',
        toolName: 'getMenu',
        input: { date: '2025-03-11', filters: ['gluten-free'] },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_menu_1',
        toolName: 'getMenu',
        output: {
          type: 'json',
          value: {
            date: '2025-03-11',
            items: [
              {
                name: 'Almond financier',
                glutenFree: true,
                allergens: ['nuts', 'egg', 'milk'],
                price: 3.2,
              },
              { name: 'Buckwheat crêpe', glutenFree: true, allergens: ['egg', 'milk'], price: 6.5 },
              { name: 'Rice-flour lemon cake', glutenFree: true, allergens: ['egg'], price: 4.1 },
              {
                name: 'Chestnut brownie',
                glutenFree: true,
                allergens: ['egg', 'milk'],
                price: 3.8,
              },
            ],
          },
        },
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text: 'Today we have three gluten-free options without nuts: a buckwheat crêpe (€6.50), a rice-flour lemon cake (€4.10) and a chestnut brownie (€3.80). The almond financier contains nuts, so I left it out.',
      },
    ],
  },
  {
    role: 'user',
    content: [{ type: 'text', text: 'The lemon cake sounds great. Can I reserve two for 5pm?' }],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool-call',
        toolCallId: 'call_reserve_1',
        toolName: 'reserve',
        input: { item: 'Rice-flour lemon cake', quantity: 2, pickup: '2025-03-11T17:00:00+01:00' },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_reserve_1',
        toolName: 'reserve',
        output: {
          type: 'text',
          value: 'Reserved 2 × Rice-flour lemon cake, pickup 17:00, code LEM-4821.',
        },
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text: 'Done! Two lemon cakes are waiting for you at 5pm — your pickup code is LEM-4821.',
      },
    ],
  },
  {
    role: 'user',
    content: [{ type: 'text', text: 'Thanks! What was my code again, and is the cake nut-free?' }],
  },
];

// ---------------------------------------------------------------------------------------------

// An optional folder argument lets tests check that the committed files match the generator.
const folder = process.argv[2]
  ? `${process.argv[2].replace(/\/+$/, '')}/`
  : fileURLToPath(new URL('.', import.meta.url));
writeFileSync(`${folder}agent-session.json`, `${JSON.stringify(agentSession, null, 2)}\n`);
writeFileSync(`${folder}ai-sdk-chat.json`, `${JSON.stringify(aiSdkChat, null, 2)}\n`);
process.stdout.write(
  `agent-session.json: ${messages.length} messages, ${JSON.stringify(agentSession).length} characters\n` +
    `ai-sdk-chat.json: ${aiSdkChat.length} messages\n`,
);
