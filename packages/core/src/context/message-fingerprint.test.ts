import { describe, expect, it } from 'vitest';
import { results } from '../compression/test-messages.js';
import type { Message } from '../contracts/index.js';
import { hashString, messageFingerprint } from './message-fingerprint.js';

const toolResult = (value: string): Message => results({ id: 'call_1', output: value });

describe('messageFingerprint', () => {
  it('keeps the fingerprints sessions stored for messages without long strings', () => {
    const message: Message = { role: 'user', content: 'Deploy on Tuesday, never force-push.' };
    expect(messageFingerprint(message)).toBe(
      hashString(JSON.stringify({ role: 'user', content: message.content })),
    );
  });

  it('tells long payloads apart by every character, and matches equal copies', () => {
    const payload = 'A'.repeat(200_000);
    const changedLast = `${payload.slice(0, -1)}B`;
    const changedMiddle = `${payload.slice(0, 100_000)}B${payload.slice(100_001)}`;
    // A lone surrogate must not look like the replacement character it would encode to.
    const lone = `${payload.slice(0, -1)}\ud800`;
    const replaced = `${payload.slice(0, -1)}\ufffd`;
    const fingerprint = messageFingerprint(toolResult(payload));
    expect(messageFingerprint(toolResult(`${'A'.repeat(100_000)}${'A'.repeat(100_000)}`))).toBe(
      fingerprint,
    );
    const others = [changedLast, changedMiddle, lone, replaced, payload.slice(1)].map((value) =>
      messageFingerprint(toolResult(value)),
    );
    expect(new Set([fingerprint, ...others]).size).toBe(6);
  });
});
