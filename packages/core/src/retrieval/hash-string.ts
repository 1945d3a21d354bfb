/** 32-bit FNV-1a over UTF-16 code units, with a seed so that independent hashes can be drawn. */
export function hash32(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  // Murmur3's finaliser: FNV alone leaves the low bits poorly mixed for short strings.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** A 64-bit content fingerprint as 16 hex digits (two independent 32-bit hashes). */
export function contentHash(text: string): string {
  return (
    hash32(text, 0x9e3779b9).toString(16).padStart(8, '0') +
    hash32(text, 0x7f4a7c15).toString(16).padStart(8, '0')
  );
}
