import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/index.js';
import { analyzeText, createTextAnalyzer } from './index.js';

describe('analyzeText', () => {
  it('lower-cases, drops stop words and stems English', () => {
    expect(analyzeText('What did Ana say about the painting classes?')).toEqual([
      'ana',
      'sai',
      'paint',
      'class',
    ]);
  });

  it('maps irregular forms to their base form before stemming', () => {
    expect(analyzeText('I went and bought shoes for the children')).toEqual(
      analyzeText('go buy shoe child'),
    );
  });

  it('drops negated auxiliaries instead of misreading them', () => {
    // "won't" must not become the verb "win", nor "don" a topic word.
    expect(analyzeText("I won't go, don't ask")).toEqual(['go', 'ask']);
    expect(analyzeText('We won’t stay')).toEqual(['stai']);
  });

  it('splits possessives and contractions at the apostrophe', () => {
    expect(analyzeText("Ana's dog")).toEqual(['ana', 'dog']);
  });

  it('normalises full-width forms with NFKC', () => {
    expect(analyzeText('ＧＰＵ　２０２４')).toEqual(['gpu', '2024']);
  });

  it('splits Chinese runs into 2- to 4-character n-grams', () => {
    expect(analyzeText('上下文')).toEqual(['上下', '下文', '上下文']);
    const terms = analyzeText('GPU 选型建议');
    expect(terms).toContain('gpu');
    expect(terms).toContain('选型');
    expect(terms).toContain('选型建议');
    expect(terms).not.toContain('选型建议x');
  });

  it('separates Latin words and digits glued to CJK text', () => {
    expect(analyzeText('GPU选型用A100')).toEqual(['gpu', '选型', '型用', '选型用', 'a100']);
  });

  it('keeps a lone CJK character as one term', () => {
    expect(analyzeText('猫')).toEqual(['猫']);
  });

  it('treats Japanese kana and kanji as one run', () => {
    const terms = analyzeText('東京タワーに行きました');
    expect(terms).toContain('東京');
    expect(terms).toContain('タワー');
    expect(terms).toContain('行き');
  });

  it('never cuts a character outside the Basic Multilingual Plane in half', () => {
    const terms = analyzeText('𠮷野家');
    expect(terms).toEqual(['𠮷野', '野家', '𠮷野家']);
    for (const term of terms) expect(term.isWellFormed()).toBe(true);
  });

  it('returns no terms for empty or punctuation-only text', () => {
    expect(analyzeText('')).toEqual([]);
    expect(analyzeText('?!… — ---')).toEqual([]);
  });
});

describe('createTextAnalyzer', () => {
  it('can keep stop words and skip stemming', () => {
    const analyzer = createTextAnalyzer({ stopWords: false, stemmer: 'none' });
    expect(analyzer('The painting was gone')).toEqual(['the', 'painting', 'be', 'go']);
    expect(
      createTextAnalyzer({ stopWords: false, stemmer: 'none', irregularForms: false })('was gone'),
    ).toEqual(['was', 'gone']);
  });

  it('can use a custom stop list', () => {
    const analyzer = createTextAnalyzer({ stopWords: new Set(['hello']) });
    expect(analyzer('hello the parties')).toEqual(['the', 'parti']);
  });

  it('splits a long CJK document without running out of call arguments', () => {
    const terms = analyzeText('上下文压缩'.repeat(20_000));
    expect(terms.length).toBeGreaterThan(200_000);
  });

  it('can split CJK with Intl.Segmenter instead of n-grams', () => {
    const analyzer = createTextAnalyzer({ cjk: 'segmenter', segmenterLocale: 'zh' });
    const terms = analyzer('我喜欢上下文压缩');
    expect(terms.join('')).toBe('我喜欢上下文压缩');
    expect(terms.length).toBeGreaterThan(1);
    expect(terms.length).toBeLessThan(8);
  });

  it('with both, adds dictionary words longer than the n-grams', () => {
    const ngrams = createTextAnalyzer()('東京スカイツリー');
    const both = createTextAnalyzer({ cjk: 'both' })('東京スカイツリー');
    expect(both.slice(0, ngrams.length)).toEqual(ngrams);
    expect(both.length).toBeGreaterThanOrEqual(ngrams.length);
  });

  it('honours custom n-gram sizes', () => {
    expect(createTextAnalyzer({ cjkNgrams: { min: 1, max: 1 } })('上下文')).toEqual([
      '上',
      '下',
      '文',
    ]);
  });

  it('rejects impossible n-gram sizes with InvalidArgumentError', () => {
    for (const cjkNgrams of [
      { min: 0, max: 2 },
      { min: 3, max: 2 },
      { min: 1.5, max: 2 },
    ]) {
      const error = (() => {
        try {
          createTextAnalyzer({ cjkNgrams });
        } catch (caught) {
          return caught;
        }
      })();
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
    }
  });
});
