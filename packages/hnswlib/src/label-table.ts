/** An item as the index knows it beside the native graph, which sees only numeric labels. */
export interface LabelEntry {
  id: string;
  scopeKey: string;
}

/** The labels of one scope. */
export interface ScopeMembers {
  labels: Set<number>;
  /** Normalised vectors of the members, present only while the scope is searched exactly. */
  vectors: Map<number, Float32Array> | undefined;
}

/**
 * The bookkeeping beside the native graph: string id ↔ numeric label, the labels of each scope,
 * and copies of the vectors of the scopes small enough to be searched exactly. It never calls the
 * native index: the index changes the graph first and records the change here once it succeeded.
 */
export class LabelTable {
  readonly #idToLabel = new Map<string, number>();
  readonly #entries = new Map<number, LabelEntry>();
  readonly #scopes = new Map<string, ScopeMembers>();
  readonly #exactSearchMaxItems: number | 'auto';
  #nextLabel = 0;

  constructor(exactSearchMaxItems: number | 'auto') {
    this.#exactSearchMaxItems = exactSearchMaxItems;
  }

  /** Live items. */
  get size(): number {
    return this.#entries.size;
  }

  /** The label the next new item gets; labels are never reused for another id while live. */
  get nextLabel(): number {
    return this.#nextLabel;
  }

  /** Every live label with its id and scope, for saving the header. */
  get entries(): ReadonlyMap<number, LabelEntry> {
    return this.#entries;
  }

  get scopeCount(): number {
    return this.#scopes.size;
  }

  /** How many vector copies the exactly searched scopes hold. */
  cachedVectors(): number {
    let cached = 0;
    for (const members of this.#scopes.values()) cached += members.vectors?.size ?? 0;
    return cached;
  }

  labelOf(id: string): number | undefined {
    return this.#idToLabel.get(id);
  }

  has(id: string): boolean {
    return this.#idToLabel.has(id);
  }

  /** The id of a live label. */
  idOf(label: number): string {
    return this.#entries.get(label)!.id;
  }

  scope(scopeKey: string): ScopeMembers | undefined {
    return this.#scopes.get(scopeKey);
  }

  /** Up to how many members a scope is searched exactly instead of through the graph. */
  exactSearchMaxItems(): number {
    const limit = this.#exactSearchMaxItems;
    if (limit !== 'auto') return limit;
    return Math.max(256, Math.floor(Math.sqrt(256 * this.#entries.size)));
  }

  /** Records a new item under `nextLabel`, which the native graph now holds. */
  add(id: string, scopeKey: string, vector: readonly number[]): void {
    const label = this.#nextLabel;
    this.#nextLabel += 1;
    this.#idToLabel.set(id, label);
    this.#entries.set(label, { id, scopeKey });
    this.#join(scopeKey, label, vector);
  }

  /** Records a new vector (and maybe scope) for a live label. */
  move(label: number, scopeKey: string, vector: readonly number[]): void {
    const entry = this.#entries.get(label)!;
    this.#leave(entry.scopeKey, label);
    entry.scopeKey = scopeKey;
    this.#join(scopeKey, label, vector);
  }

  /** Records an item read back from a saved header (its vector stays in the native graph). */
  restore(id: string, label: number, scopeKey: string): void {
    this.#idToLabel.set(id, label);
    this.#entries.set(label, { id, scopeKey });
    this.#membersOf(scopeKey).labels.add(label);
  }

  /** Sets the next label a saved header recorded. */
  restoreNextLabel(nextLabel: number): void {
    this.#nextLabel = nextLabel;
  }

  forget(label: number): void {
    const entry = this.#entries.get(label);
    if (!entry) return;
    this.#entries.delete(label);
    this.#idToLabel.delete(entry.id);
    this.#leave(entry.scopeKey, label);
  }

  clear(): void {
    this.#idToLabel.clear();
    this.#entries.clear();
    this.#scopes.clear();
    this.#nextLabel = 0;
  }

  /** Drops every vector copy (the index is closing). */
  dropVectors(): void {
    for (const members of this.#scopes.values()) members.vectors = undefined;
  }

  #join(scopeKey: string, label: number, vector: readonly number[]): void {
    const members = this.#membersOf(scopeKey);
    members.labels.add(label);
    const exactLimit = this.exactSearchMaxItems();
    // Copy the vector now, while it is at hand, if the scope will be searched exactly: reading it
    // back from the native index later costs far more.
    if (members.labels.size <= exactLimit) members.vectors ??= new Map();
    else if (members.labels.size > exactLimit * 2) members.vectors = undefined;
    members.vectors?.set(label, Float32Array.from(vector));
  }

  #membersOf(scopeKey: string): ScopeMembers {
    let members = this.#scopes.get(scopeKey);
    if (!members) {
      members = { labels: new Set(), vectors: undefined };
      this.#scopes.set(scopeKey, members);
    }
    return members;
  }

  #leave(scopeKey: string, label: number): void {
    const members = this.#scopes.get(scopeKey);
    if (!members) return;
    members.labels.delete(label);
    members.vectors?.delete(label);
    if (members.labels.size === 0) this.#scopes.delete(scopeKey);
  }
}
