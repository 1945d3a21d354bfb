/**
 * The texts the token bench counts (part of `tokens.bench.ts`): English prose with Zipf-like word
 * frequencies, Chinese prose and unbroken CJK runs, JSON records, base64, and a tool-using
 * conversation mixing them, each generated from a fixed seed.
 */
import type { Message } from '../packages/core/src/contracts/index.js';
import { createRandom } from '../packages/core/src/test/memory-index-vectors.js';

/** Picks from `items` with a Zipf-like bias towards the front, as word frequencies are. */
function zipfPicker<Item>(items: readonly Item[], next: () => number): () => Item {
  return () => items[Math.floor(items.length * next() ** 2.2)]!;
}

const ENGLISH_WORDS = (
  'the of and to a in is it you that he was for on are with as I his they be at one have this ' +
  'from or had by not word but what some we can out other were all there when up use your how ' +
  'said an each she which do their time if will way about many then them write would like so ' +
  'these her long make thing see him two has look more day could go come did number sound no ' +
  'most people my over know water than call first who may down side been now find any new work ' +
  'part take get place made live where after back little only round man year came show every ' +
  'good me give our under name very through just form sentence great think say help low line ' +
  'differ turn cause much mean before move right boy old too same tell does set three want air ' +
  'well also play small end put home read hand port large spell add even land here must big ' +
  'high such follow act why ask men change went light kind off need house picture try us again ' +
  'animal point mother world near build self earth father context memory budget token model ' +
  'summary compression history conversation assistant repository deployment configuration ' +
  'function variable database request response performance architecture implementation ' +
  'incrementally nevertheless extraordinary responsibility understanding'
).split(' ');

export function englishText(characters: number, seed: number): string {
  const next = createRandom(seed);
  const word = zipfPicker(ENGLISH_WORDS, next);
  const parts: string[] = [];
  let length = 0;
  while (length < characters) {
    const sentenceLength = 6 + Math.floor(next() * 18);
    let sentence = '';
    for (let index = 0; index < sentenceLength; index++) {
      let current = word();
      if (index === 0) current = current[0]!.toUpperCase() + current.slice(1);
      if (next() < 0.03) current = String(Math.floor(next() * 10_000));
      sentence += (index === 0 ? '' : next() < 0.08 ? ', ' : ' ') + current;
    }
    sentence += next() < 0.1 ? '?' : '.';
    const separator = next() < 0.15 ? '\n\n' : ' ';
    parts.push(sentence, separator);
    length += sentence.length + separator.length;
  }
  return parts.join('');
}

// The most frequent Chinese characters, roughly in frequency order.
const COMMON_HAN =
  '的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学' +
  '对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面' +
  '公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部' +
  '正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关' +
  '并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安' +
  '表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共' +
  '风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管' +
  '夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品' +
  '士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研' +
  '像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济';

export function chineseText(characters: number, seed: number): string {
  const next = createRandom(seed);
  const character = zipfPicker([...COMMON_HAN], next);
  let text = '';
  let sinceBreak = 0;
  while (text.length < characters) {
    text += character();
    sinceBreak++;
    if (sinceBreak > 6 && next() < 0.08) {
      text += next() < 0.3 ? '。' : '，';
      sinceBreak = 0;
    }
  }
  return text;
}

/** One run of CJK characters with no punctuation: a single pre-tokenizer piece. */
export function cjkRun(characters: number, seed: number): string {
  const next = createRandom(seed);
  const character = zipfPicker([...COMMON_HAN], next);
  let text = '';
  while (text.length < characters) text += character();
  return text;
}

export function jsonText(characters: number, seed: number): string {
  const next = createRandom(seed);
  const word = zipfPicker(ENGLISH_WORDS, next);
  const records: unknown[] = [];
  let length = 0;
  for (let id = 1; length < characters; id++) {
    const record = {
      id,
      uuid: `${Math.floor(next() * 0xffffffff).toString(16)}-${Math.floor(next() * 0xffff).toString(16)}`,
      name: `${word()} ${word()}`,
      email: `${word()}.${word()}@example.com`,
      createdAt: new Date(1_700_000_000_000 + Math.floor(next() * 1e10)).toISOString(),
      score: Math.round(next() * 10_000) / 100,
      active: next() < 0.5,
      tags: [word(), word(), word()],
      url: `https://example.com/${word()}/${id}`,
    };
    const serialized = JSON.stringify(record);
    records.push(record);
    length += serialized.length + 1;
  }
  return JSON.stringify(records);
}

export function base64Text(bytes: number, seed: number): string {
  const next = createRandom(seed);
  return Buffer.from(Array.from({ length: bytes }, () => Math.floor(next() * 256))).toString(
    'base64',
  );
}

export function conversation(messages: number, seed: number): Message[] {
  const next = createRandom(seed);
  const history: Message[] = [{ role: 'system', content: englishText(1500, seed) }];
  for (let index = 1; history.length < messages; index++) {
    history.push({
      role: 'user',
      content: englishText(60 + Math.floor(next() * 400), seed + index),
    });
    if (next() < 0.4) {
      const id = `call_${index}`;
      history.push({
        role: 'assistant',
        content: [
          { type: 'text', text: englishText(80, seed * 3 + index) },
          {
            type: 'tool-call',
            toolCallId: id,
            toolName: 'search',
            input: { query: englishText(30, index) },
          },
        ],
      });
      history.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: id,
            toolName: 'search',
            output: {
              type: 'text',
              value: jsonText(300 + Math.floor(next() * 1500), seed * 7 + index),
            },
          },
        ],
      });
    }
    history.push({
      role: 'assistant',
      content:
        next() < 0.2
          ? chineseText(200, seed + index)
          : englishText(100 + Math.floor(next() * 800), seed * 5 + index),
    });
  }
  return history.slice(0, messages);
}
