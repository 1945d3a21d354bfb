// Writes each encoding's vocabulary file into dist/vocabulary/ after `tsc`, from the js-tiktoken
// ranks this build depends on: processes that count then read typed arrays instead of decoding
// and hashing the rank text (see src/tokens/vocabulary-file.ts).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  buildBpeRanks,
  TOKEN_ENCODING_NAMES,
  vocabularyFileUrl,
} from '../dist/tokens/bpe-ranks.js';
import { decodeVocabularyFile, encodeVocabularyFile } from '../dist/tokens/vocabulary-file.js';

for (const name of TOKEN_ENCODING_NAMES) {
  const path = fileURLToPath(vocabularyFileUrl(name));
  const file = encodeVocabularyFile(buildBpeRanks(name));
  if (decodeVocabularyFile(file, name) === undefined) {
    throw new Error(`the ${name} vocabulary file does not read back`);
  }
  mkdirSync(fileURLToPath(new URL('.', vocabularyFileUrl(name))), { recursive: true });
  writeFileSync(`${path}.tmp`, file);
  renameSync(`${path}.tmp`, path);
}
