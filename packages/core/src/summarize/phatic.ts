import { isSmallTalk } from './cue-words.js';

/**
 * Phatic sentences keep a conversation going without telling anything: greetings, check-ins,
 * encouragement, compliments and goodbyes ("Keep on keepin' on, bud!", "How's it going since we
 * talked?", "Don't forget to relax and enjoy the process too!"). They fill a summary with words
 * that answer no question, so they are filtered out, unless they carry something exact.
 */
const PHATIC = new RegExp(
  [
    // Greetings and check-ins.
    String.raw`^(?:hey|hi|hello|yo|howdy|hiya|good (?:morning|afternoon|evening))(?:\s+(?:there|again|all|everyone|guys|you|[\p{Lu}][\p{L}'’-]*))?[\s,!.…]*$`,
    String.raw`^long time no (?:see|chat|talk|speak)\b`,
    String.raw`^how(?:'s| is| are| have| has)\b.{0,40}\b(?:going|doing|been|you|things|life|it|week|day)\b.{0,30}\?$`,
    String.raw`^what'?s (?:up|new|going on)\b`,
    String.raw`^(?:it'?s |it was |so |really )*(?:good|great|nice|lovely|awesome) (?:to|that you)\b.{0,20}\b(?:see|hear|talk|chat|catch up|meet|reach(?:ed)? out)\b`,
    String.raw`^(?:glad|happy|nice) (?:to|we) (?:catch up|chat|talk|connect|hear from you)\b`,
    // Encouragement and good wishes addressed to the listener.
    String.raw`^(?:keep (?:on|it up|going|growing|up the|shining|rocking|pushing|at it|doing)|you(?:'ve)? got this|hang in there|go for it|good luck|best of luck|fingers crossed|take care|stay (?:safe|strong|positive|awesome)|don'?t (?:forget to (?:relax|enjoy|have fun|smile|breathe|rest|take care|treat yourself|be kind)|give up|stop (?:believing|dreaming|trying))|never give up|enjoy (?:it|yourself|the|every)|have (?:fun|a (?:good|great|nice|blast))|you (?:can|will) do (?:it|this)|believe in yourself|all the best)\b`,
    // Compliments and reactions to what the other said.
    String.raw`^(?:that'?s|that is|(?:that|it|this) (?:sounds|looks)(?: like)?|(?:they|he|she)(?:'re|'s| are| is)|this is|it'?s|what an?|how|sounds|sounds like|looks|looks like|you look|you're|you are|you must be|you should be|so|such an?)\s+(?:so |really |very |truly |super |pretty |absolutely |just |such |much |an? )*(?:awesome|amazing|great|cool|nice|wonderful|fantastic|incredible|lovely|beautiful|inspiring|impressive|fun|exciting|sweet|brilliant|perfect|special|adorable|cute|rad|neat|proud|so proud|lucky)\b[^.!?,;:]{0,40}[.!?]*$`,
    String.raw`^(?:i'?m|i am|we'?re)\s+(?:so |really |very |super )*(?:happy|glad|proud|excited|thrilled|stoked) (?:for you|of you|to hear(?: that)?|you)\b[^.!?,;:]{0,30}[.!?]*$`,
    String.raw`^(?:i )?(?:can'?t wait to (?:see|hear)|love (?:that|it|this|you)|miss(?:ed)? you|appreciate (?:it|you|that))\b[^.!?,;:]{0,30}[.!?]*$`,
    String.raw`^thanks?(?: you)?\b(?: (?:so|very) much| a lot| for (?:asking|sharing|the|your|being|listening|that|this|everything|chatting|reaching))?[^.!?,;:]{0,40}[.!?]*$`,
    String.raw`^(?:bye|goodbye|see ya|catch you later|talk (?:to you )?(?:soon|later)|later|cheers)\b`,
  ].join('|'),
  'iu',
);

/** Something exact that makes even a polite sentence worth keeping: a number or a date word. */
const EXACT =
  /\d|\b(?:jan(?:uary)?|feb(?:ruary)?|march|april|june|july|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|tomorrow|last (?:week|month|year)|next (?:week|month|year))\b/iu;

/**
 * Whether a sentence is phatic: small talk, a greeting, a check-in, encouragement or a
 * compliment with nothing exact in it (a number or a date keeps it).
 */
export function isPhatic(sentence: string): boolean {
  const text = sentence
    .trim()
    .replace(/^["'“‘]+|["'”’]+$/gu, '')
    .replaceAll('’', "'");
  if (isSmallTalk(text)) return true;
  return PHATIC.test(text) && !EXACT.test(text);
}
