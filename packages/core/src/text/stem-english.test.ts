import { describe, expect, it } from 'vitest';
import { stemEnglish, stemEnglishPorter } from './index.js';

describe('stemEnglishPorter', () => {
  // Examples from Porter (1980), "An algorithm for suffix stripping", run through all steps.
  const examples: Record<string, string> = {
    caresses: 'caress',
    ponies: 'poni',
    ties: 'ti',
    cats: 'cat',
    feed: 'feed',
    agreed: 'agre',
    plastered: 'plaster',
    bled: 'bled',
    motoring: 'motor',
    sing: 'sing',
    conflated: 'conflat',
    troubled: 'troubl',
    sized: 'size',
    hopping: 'hop',
    tanned: 'tan',
    falling: 'fall',
    hissing: 'hiss',
    fizzed: 'fizz',
    failing: 'fail',
    filing: 'file',
    happy: 'happi',
    sky: 'sky',
    relational: 'relat',
    conditional: 'condit',
    rational: 'ration',
    digitizer: 'digit',
    radicalli: 'radic',
    differentli: 'differ',
    vileli: 'vile',
    analogousli: 'analog',
    vietnamization: 'vietnam',
    predication: 'predic',
    operator: 'oper',
    feudalism: 'feudal',
    decisiveness: 'decis',
    hopefulness: 'hope',
    callousness: 'callous',
    formaliti: 'formal',
    sensitiviti: 'sensit',
    sensibiliti: 'sensibl',
    triplicate: 'triplic',
    formative: 'form',
    formalize: 'formal',
    electriciti: 'electr',
    electrical: 'electr',
    goodness: 'good',
    revival: 'reviv',
    allowance: 'allow',
    inference: 'infer',
    airliner: 'airlin',
    gyroscopic: 'gyroscop',
    adjustable: 'adjust',
    defensible: 'defens',
    irritant: 'irrit',
    replacement: 'replac',
    adjustment: 'adjust',
    dependent: 'depend',
    adoption: 'adopt',
    communism: 'commun',
    activate: 'activ',
    angulariti: 'angular',
    homologous: 'homolog',
    effective: 'effect',
    bowdlerize: 'bowdler',
    probate: 'probat',
    rate: 'rate',
    cease: 'ceas',
    controll: 'control',
    roll: 'roll',
    generalizations: 'gener',
    oscillators: 'oscil',
  };

  it.each(Object.entries(examples))('stems %s to %s', (word, stem) => {
    expect(stemEnglishPorter(word)).toBe(stem);
  });

  it('merges the forms of one verb', () => {
    const stems = ['paint', 'paints', 'painted', 'painting'].map(stemEnglishPorter);
    expect(new Set(stems)).toEqual(new Set(['paint']));
  });

  it('leaves short words, digits and non-ASCII words alone', () => {
    for (const word of ['is', 'a', '2023', 'café', 'straße', 'b2b']) {
      expect(stemEnglishPorter(word)).toBe(word);
    }
  });
});

describe('stemEnglish', () => {
  it.each([
    ['went', 'go'],
    ['bought', 'bui'],
    ['children', 'child'],
    ['people', 'person'],
    ['parties', 'parti'],
    ['painted', 'paint'],
  ])('maps irregular forms to their base, then stems: %s → %s', (word, stem) => {
    expect(stemEnglish(word)).toBe(stem);
  });
});
