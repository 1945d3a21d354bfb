import { describe, expect, it } from 'vitest';
import { isPhatic } from './phatic.js';

describe('isPhatic', () => {
  it.each([
    "Keep on keepin' on, bud!",
    'Keep growing, buddy.',
    "How's it going since we talked?",
    'How have you been lately?',
    'Hey Calvin!',
    'Long time no chat!',
    'Don’t forget to relax and enjoy the process too!',
    'That’s so awesome!',
    'That sounds like so much fun!',
    "I'm so happy for you!",
    'Thanks for sharing!',
    'Good luck with it!',
    'You got this!',
    'Take care.',
    '好久不见',
    '谢谢',
  ])('filters %s', (sentence) => {
    expect(isPhatic(sentence)).toBe(true);
  });

  it.each([
    'Hi, I moved to Boston.',
    'Keep the API key in the vault.',
    "Don't forget to rotate the API key.",
    'That’s great, the migration passed.',
    'Good luck at the race on 12 May!',
    'Thanks for the update: the build is green.',
    'Yesterday my friends and I recorded a podcast.',
    'How do I configure the proxy?',
    'I adopted a dog from the shelter.',
  ])('keeps %s', (sentence) => {
    expect(isPhatic(sentence)).toBe(false);
  });
});
