export const MAIN_HELP = `ctxmem — keep LLM conversations inside their token budget

Usage
  ctxmem compact <file.json | -> --budget <tokens> [options]
  ctxmem inspect <file.json> [--context-window <tokens>] [--model <id>]
  ctxmem inspect <file.json|session> --html <report.html> | --serve [options]
  ctxmem reload <id> [--offload-dir <dir>] [--json | --format <format>]
  ctxmem memory <add|search|list|remove|stats> --store <dir> [options]
  ctxmem mcp --store <dir|postgres://…|redis://…> [scope] [--http [--port <n>]]

Commands
  compact   Compress a conversation to a token budget and print it in the same format
  inspect   Show what a conversation spends its tokens on and what a compaction would do;
            --html / --serve: a page of every call's window, compactions, summary and offloads
  reload    Print a payload that compact offloaded, by the id shown in its preview
  memory    Add, search, list and remove long-term memory cards in a store folder
  mcp       Serve a store's memory to MCP clients (desktop assistants, coding agents)

Options
  -h, --help     Show help (also: ctxmem <command> --help)
  -v, --version  Show the version
  -q, --quiet    With any command: no progress and no report on stderr (warnings and errors
                 still print). Progress shows only when stderr is a terminal, and not in CI.

Conversations are JSON in OpenAI Chat Completions, Anthropic Messages (a messages array or a
request body with "messages"), OpenAI Responses (a body with "input" and "instructions", or an
array of its items) or AI SDK ModelMessage format; the format is detected.
"-" in place of an input file reads stdin (compact, memory add --jsonl, memory search
--queries); --out - and --report-json - write to stdout.
Relative paths resolve against the folder you started from (CTXMEM_CALLER_CWD when a wrapper
such as scripts/run.sh changes directory). Set CTXMEM_DEBUG=1 to see stack traces.

Exit codes: 0 done, 1 failed (a file, the input or the budget), 2 usage error (bad arguments).
`;

export const COMPACT_HELP = `Usage: ctxmem compact <file.json | -> --budget <tokens> [options]

Compresses a conversation until it fits the budget and writes it in the same format and
envelope as the input (stdout unless --out): OpenAI Chat Completions, OpenAI Responses,
Anthropic Messages or AI SDK messages. A report goes to stderr: tokens before and after each
strategy, summarizer calls, duration, and the window's composition before and after. On a
terminal, a status line shows the work on large bodies (from 20,000 tokens, or any size with
--model); --quiet turns it and the report off.
The budget counts the whole request: "system" / "instructions" and "tools" included. The
output the body asks for (max_output_tokens, max_completion_tokens, max_tokens) is not part of
--budget; when the body's model is known, a note says if budget + output exceed its window.
Responses reasoning items are kept verbatim (their encrypted content cannot be edited) and
go with their turn; function_call / function_call_output items stay paired.
"-" as the file reads the body from stdin. Relative paths resolve against the folder you
started from, also through bash scripts/run.sh or pnpm ctxmem (CTXMEM_CALLER_CWD).

Options
  --budget <tokens>        Hard limit for the whole request: tool definitions + messages
                           (required). Accepts 8000, 8_000 or 8k.
  --target <tokens>        Compress until at or under this many tokens (default: the budget).
                           A target below the budget leaves headroom for the next turns.
  --keep-recent <n>        How much recent history stays verbatim:
                             --history compressed   → the last n messages (minMessagesToKeep, default 4)
                             --history recent-only  → the last n rounds (recentRounds, default 3)
                             --history summary-only → not allowed (only the current round is kept)
  --history <mode>         compressed (default) | recent-only | summary-only
  --out <file | ->         Write the result to a file (default: - for stdout).
  --report-json <file | -> Also write the report as JSON (- for stdout, with --out <file>).
  --encoding <name>        Count with o200k_base or cl100k_base whatever the body's model.
                           Default: from the body's "model" (gpt-4 and gpt-3.5 → cl100k_base,
                           gpt-4o, gpt-4.1, gpt-5, o-series and every other model → o200k_base),
                           else from --model, else o200k_base.
  --margin <factor>        Multiply every count by this (1 to 3). Default: 1.2 when the model
                           is not OpenAI's (Claude, Gemini, Llama…: no public tokenizer, so
                           o200k_base is an estimate), 1 for OpenAI models and bodies without one.
  --model <id>             Summarize with this model through an OpenAI-compatible API
                           (OPENAI_API_KEY required; OPENAI_BASE_URL, default
                           https://api.openai.com/v1). The offline extractive summarizer is
                           the fallback, and the default without --model.
  --timeout <ms>           How long one summary waits for the --model endpoint (default 30000).
                           On expiry, or any failure, that summary and the rest of the run use
                           the offline summarizer.
  --no-tools               When the output refers to reload_context (offloaded payloads), do not
                           add its definition to the body's "tools" (added by default, in the
                           body's format, and counted in the budget).
  --offload-dir <dir>      Where large payloads are offloaded (default: .ctxmem/offload next
                           to --out, or in the current folder). Bring one back later with
                           ctxmem reload <id> --offload-dir <dir>.
  -q, --quiet              No progress and no report on stderr (notes and errors still print).
  -h, --help               Show this help.

Exit codes: 0 done, 1 failed (unreadable file, invalid JSON, unknown format, budget too small,
output not writable), 2 usage error (bad or unknown option, "-" without piped stdin).
`;

export const INSPECT_HELP = `Usage: ctxmem inspect <file.json> [options]
       ctxmem inspect <file.json|session> --html <report.html> | --serve [options]

Shows how many tokens a conversation uses and on what (system, summary, tool calls, tool
results, user, assistant), its largest messages, and what a compaction at the window's budget
would do (a dry run: nothing is written). <file.json> may be - to read the conversation from
stdin.

With --html or --serve it builds the inspector page instead: the conversation is replayed call
by call through the context manager (extractive summaries, nothing written, no model called),
and the page shows a timeline of the calls and compactions (strategies, tokens before and
after, summarizer or fallback), each call's window as a stacked bar against the budget, the
rolling summary with a diff against the previous one, every offloaded payload with its
original, and the memory cards injected. The page is one static file: no script, no network.
When no such file exists, the argument is a session id in a store (--store): the calls ctxmem
recorded for it are shown (older sessions without records are replayed from their history),
with its working state and offloads.

Options
  --context-window <tokens>  The model's context window (default: from --model, else 128k).
  --model <id>               Model id: selects the tokenizer and, without --context-window,
                             the window (for example gpt-4o, claude-sonnet-4, gemini-2.5-pro).
  --top <n>                  How many of the largest messages to list (default 10).
  --html <file>              Write the inspector page to this file (- for stdout).
  --serve                    Serve the page on 127.0.0.1 (read-only, a random token in the
                             address, required on every request) until Ctrl+C.
  --port <n>                 The port for --serve (default: a random free port).
  --budget <tokens>          The messages' budget of the replay (no output reserve on top);
                             default: the window's budget.
  --store <dir|url>          The store of a session: a folder (default: .ctxmem),
                             postgres://… (needs @ctxmem/postgres) or redis://… (@ctxmem/redis).
  --user <id>  --agent <id>  The rest of the session's scope in the store.
  --memory-store <dir>       Search this memory card store (ctxmem memory) on every call and
                             show the cards injected, with their scores.
  -h, --help                 Show this help.
`;

export const RELOAD_HELP = `Usage: ctxmem reload <id> [options]

Prints a payload that ctxmem compact offloaded, by the id shown in its preview.

Options
  --offload-dir <dir>  The folder compact offloaded to (default: .ctxmem/offload).
  --json               Print the stored record (the original message as JSON).
  --format <format>    Print the original message as JSON in a body's format, ready to put
                       back: openai-chat, openai-responses, anthropic or ai-sdk (a tool
                       result in openai-responses is a function_call_output item).
  -h, --help           Show this help.
`;

export const MEMORY_HELP = `Usage: ctxmem memory <subcommand> --store <dir> [scope] [options]

Long-term memory cards in a file store (one cards.jsonl log per scope under <dir>/scopes/).

Subcommands
  add      --jsonl <file|-> | --text "…" Add cards; duplicates merge, a changed fact supersedes
           [--type <type>] [--tags a,b]  the older card. JSONL: one object per line with
           [--source <s>] [--progress]   "content" (required), "type", "tags", "source",
           [--json]                      "occurredAt" (ISO 8601: when it happened, the card's
                                         date); the flags are defaults for records without
                                         the field. Type "episode" is a verbatim record, such
                                         as a conversation turn.
                                         Every line is checked before anything is added.
                                         --jsonl - reads the lines from stdin.
  search   --query "…" | --queries <file.jsonl|->
           [--top-k 5] [--min-score 0] [--mode hybrid|bm25|vector] [--json]
           [--embedder hashing|local|openai] [--embedding-model <id>]
           [--fusion rrf|weighted[:<vector weight>]] [--sequence-context]
                                         --queries answers many queries in one run, in input
                                         order (- reads them from stdin); a line is
                                         {"query": "…"}, optionally with its own "scope":
                                         {"userId": "…"} instead of the flags'.
                                         --json prints one line per query: {"query", "results":
                                         [{"id", "content", "score", "type", "tags", "source"}]}.
  list     [--include-superseded] [--json]   The cards of the scope (--json: one card per line).
  remove   <id…>                         Remove cards by id (none unless every id exists).
  stats    [--json]                      Cards per type, superseded cards, file size.

Search options
  --embedder hashing     Built in and offline (default): matches word forms, not meanings.
  --embedder local       The offline sentence model of @ctxmem/local-embedder (install it):
                         also matches paraphrases; embeds about 30 cards a second.
  --embedder openai      An OpenAI-compatible embedding endpoint through the AI SDK (install
                         @ctxmem/ai-sdk, ai and @ai-sdk/openai): OPENAI_API_KEY required,
                         OPENAI_BASE_URL for other servers; --embedding-model <id>, default
                         text-embedding-3-small.
  --fusion rrf|weighted[:w]  How keyword and vector scores combine; w is the vector weight
                         (default: chosen from the embedder, 0.05 hashing, 0.35 models).
  --sequence-context     Every card is a turn of a transcript (episodes always are): each
                         also scores through the turns around it, so the answer after a
                         matching question is found.

Scope (a card is only ever seen in the exact scope it was added in)
  --user <id>  --agent <id>  --session <id>     Default: the global scope.

Options
  --store <dir>   The store folder (required; add creates it).
  --progress      Show progress while adding, also without a terminal (as plain lines).
                  On a terminal it shows anyway for 200 cards or more, and search shows
                  the index build.
  -q, --quiet     No progress, whatever else says.
  -h, --help      Show this help.

Card types: goal, decision, constraint, todo, code, fact (default), preference.
Exit codes: 0 done, 1 failed (unreadable file, invalid JSONL line, unknown card id),
2 usage error (bad or unknown option, unsafe id).
`;

export const MCP_HELP = `Usage: ctxmem mcp --store <dir|postgres://…|redis://…> [scope] [options]

An MCP server over a ctxmem store, for MCP clients (desktop assistants, coding agents, your
own app). Tools: search_memory, add_memory, list_memories, remove_memory (memory cards),
recall_conversation (exact earlier turns from the store's history) and reload_context (an
offloaded payload). Resource: ctxmem://memory/MEMORY.md, the scope's cards as MEMORY.md
bullets (another scope: ctxmem://memory/user/<id>/session/<id>/MEMORY.md).
It speaks MCP over stdin and stdout until stdin ends or SIGTERM; nothing else is written to
stdout, notes go to stderr. With --http it serves Streamable HTTP on 127.0.0.1 instead.

Client config (Claude Desktop, Claude Code and others: "mcpServers"):
  "ctxmem": { "command": "ctxmem", "args": ["mcp", "--store", "/home/me/.ctxmem"] }

Store
  --store <dir|url>   A folder (the file stores: cards, history and offloads side by side;
                      use an absolute path, clients start servers in any folder),
                      postgres://… (needs @ctxmem/postgres; its schema is created or
                      upgraded at start) or redis://… (needs @ctxmem/redis).
                      Default: CTXMEM_STORE (keeps a password out of the arguments).

Scope (whose memory; a call never sees another scope's)
  --user <id>  --agent <id>  --session <id>
                      Default: CTXMEM_USER_ID, CTXMEM_AGENT_ID, CTXMEM_SESSION_ID, else the
                      global scope. These fields are fixed: a call's optional "scope" argument
                      ({ "userId", "agentId", "sessionId" }) adds the fields not fixed, and a
                      different value for a fixed one is refused.

Search (search_memory)
  --embedder hashing|local|openai  --embedding-model <id>  --fusion rrf|weighted[:w]
  --sequence-context               As for ctxmem memory search (see ctxmem memory --help).

HTTP
  --http              Streamable HTTP on 127.0.0.1 (never another address), at /mcp.
  --port <n>          Default: a free port, printed on stderr.
  --token <token>     Required as "Authorization: Bearer <token>" on every request (at
                      least 16 characters). Default: CTXMEM_MCP_TOKEN, else a random token,
                      printed on stderr.

Options
  -q, --quiet         No start and stop lines on stderr (the --http address and a generated
                      token still print).
  -h, --help          Show this help.

Bad arguments in a call are answered with an error naming the problem, and the server keeps
serving. Exit codes: 0 stopped, 1 failed (the store cannot be opened, the port is taken),
2 usage error.
`;
