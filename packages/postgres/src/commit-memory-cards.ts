/**
 * `commit_memory_cards`, the PL/pgSQL function behind `memory.add` of schema version 5 (kept as
 * released; version 6 adds `commit_memory_card_writes` below): one round
 * trip per add. Arguments: the scope key, the revision the merge saw, the keys it looked up, then
 * per written card its id, JSON, superseding card id, search text and `tsvector`, and last the
 * keys of the written cards.
 *
 * Rows: first a head row (`committed`, `revision`, `complete`), then cards in stored order. When
 * committed: the cards other writers committed between the merge's revision and the new one.
 * Otherwise (nothing written): the cards written since the merge's revision, or every card when
 * `complete` (the scope was removed from since), flagged `changed`, and the stored form of the
 * cards the merge tried to write.
 */
/** The signature and variables both versions of the function share. */
function header(schema: string, name: string): string {
  return `CREATE FUNCTION ${schema}.${name}(
    p_scope text, p_since bigint, p_looked_up text[], p_ids text[], p_cards text[],
    p_superseded_by text[], p_search_text text[], p_search text[], p_written_keys text[])
  RETURNS TABLE (committed boolean, revision bigint, complete boolean, id text, card text,
    changed boolean, card_position bigint)
  LANGUAGE plpgsql VOLATILE AS $function$
  #variable_conflict use_column
  DECLARE
    v_head record;
    v_keys_from bigint;
    v_complete boolean;
    v_conflict boolean;
    v_since bigint;
    v_next bigint;
  BEGIN
`;
}

/** From the scope's head row: the first revision with keys, and whether the cache must start over. */
const HEAD_STATE = `    v_keys_from := CASE WHEN v_head.keyed_revision <> v_head.revision THEN v_head.revision
      ELSE v_head.keys_from END;
    v_complete := v_head.reset_revision > p_since OR v_head.revision < p_since;
    v_conflict := v_complete;
`;

/** On a conflict: the head row, then what changed since and the stored form of the written ids. */
function conflictRows(schema: string): string {
  return `    v_since := CASE WHEN v_complete THEN -1 ELSE p_since END;
    IF v_conflict THEN
      RETURN QUERY SELECT false, v_head.revision, v_complete, NULL::text, NULL::text,
        NULL::boolean, -1::bigint;
      RETURN QUERY SELECT NULL::boolean, NULL::bigint, NULL::boolean, stored.id, stored.card,
          stored.revision > v_since, stored.position
        FROM ${schema}.memory_cards AS stored
        WHERE stored.scope_key = p_scope AND (stored.revision > v_since OR stored.id = ANY(p_ids))
        ORDER BY stored.position;
      RETURN;
    END IF;
`;
}

/** Writes the cards and their keys at `v_next`, and moves the scope's head there. */
function writeCards(schema: string): string {
  return `    UPDATE ${schema}.memory_scopes
      SET revision = v_next, keyed_revision = v_next, keys_from = v_keys_from
      WHERE scope_key = p_scope;
    INSERT INTO ${schema}.memory_cards AS target
      (scope_key, id, card, superseded_by, search_text, search, revision)
    SELECT p_scope, item.id, item.card, item.superseded_by, item.search_text,
      item.search::tsvector, v_next
    FROM unnest(p_ids, p_cards, p_superseded_by, p_search_text, p_search)
      WITH ORDINALITY AS item(id, card, superseded_by, search_text, search, ordinality)
    ORDER BY item.ordinality
    ON CONFLICT (scope_key, id) DO UPDATE SET card = excluded.card,
      superseded_by = excluded.superseded_by, search_text = excluded.search_text,
      search = excluded.search, revision = excluded.revision;
    INSERT INTO ${schema}.memory_card_keys AS written (scope_key, conflict_key, revision)
    SELECT DISTINCT p_scope, item.conflict_key, v_next
    FROM unnest(p_written_keys) AS item(conflict_key)
    ON CONFLICT (scope_key, conflict_key) DO UPDATE SET revision = excluded.revision;
`;
}

export function commitMemoryCardsFunction(schema: string): string {
  return `${header(schema, 'commit_memory_cards')}    INSERT INTO ${schema}.memory_scopes AS current (scope_key, revision) VALUES (p_scope, 0)
    ON CONFLICT (scope_key) DO UPDATE SET revision = current.revision
    RETURNING current.revision, current.reset_revision, current.keyed_revision, current.keys_from
      INTO v_head;
${HEAD_STATE}    IF NOT v_conflict AND v_head.revision <> p_since THEN
      v_conflict := p_since < v_keys_from
        OR EXISTS (SELECT 1 FROM ${schema}.memory_card_keys AS written
          WHERE written.scope_key = p_scope AND written.conflict_key = ANY(p_looked_up)
            AND written.revision > p_since)
        OR EXISTS (SELECT 1 FROM ${schema}.memory_cards AS stored
          WHERE stored.scope_key = p_scope AND stored.id = ANY(p_ids)
            AND stored.revision > p_since);
    END IF;
${conflictRows(schema)}    v_next := v_head.revision + 1;
    RETURN QUERY SELECT true, v_next, false, NULL::text, NULL::text, NULL::boolean, -1::bigint;
    RETURN QUERY SELECT NULL::boolean, NULL::bigint, NULL::boolean, stored.id, stored.card, true,
        stored.position
      FROM ${schema}.memory_cards AS stored
      WHERE stored.scope_key = p_scope AND stored.revision > p_since
      ORDER BY stored.position;
${writeCards(schema)}  END
  $function$`;
}

/**
 * `commit_memory_card_writes` (schema version 6), which replaces `commit_memory_cards` for this
 * package (the older function stays for processes of an older version during an upgrade). The
 * same arguments and rows, except that a committed head row comes alone: the cards other writers
 * committed meanwhile are not sent back (driver-kit's synced cards catch up lazily, when a key
 * collides or the scope is listed). With no card to write it only checks: committed (nothing
 * written, the revision unchanged) unless a card written since the merge's revision carries a key
 * it looked up.
 *
 * Commits of one scope queue on a transaction-scoped advisory lock keyed by the scope before they
 * lock its row: PostgreSQL grants a waiting advisory lock to one waiter at a time, whereas every
 * waiter on a row lock wakes at each commit to find the row locked again. The row lock still
 * orders commits against `remove`, which takes only it. The row is locked with `SELECT … FOR UPDATE` rather than an
 * upsert, so a commit writes the row once (with the new revision), not twice; it is created when
 * absent.
 */
export function commitMemoryCardWritesFunction(schema: string): string {
  const lockHead = `SELECT head.revision, head.reset_revision, head.keyed_revision, head.keys_from
        INTO v_head FROM ${schema}.memory_scopes AS head WHERE head.scope_key = p_scope FOR UPDATE;`;
  return `${header(schema, 'commit_memory_card_writes')}    PERFORM pg_advisory_xact_lock(hashtextextended('ctxmem:memory:' || p_scope, 0));
    ${lockHead}
    IF NOT FOUND THEN
      INSERT INTO ${schema}.memory_scopes (scope_key, revision) VALUES (p_scope, 0)
        ON CONFLICT (scope_key) DO NOTHING;
      ${lockHead}
    END IF;
${HEAD_STATE}    IF NOT v_conflict AND v_head.revision <> p_since THEN
      -- One primary-key probe per key and per id: a filter on the revision instead would scan
      -- every card written since p_since, and a writer's p_since may be far behind.
      v_conflict := p_since < v_keys_from
        OR EXISTS (SELECT 1 FROM unnest(p_looked_up) AS item(conflict_key)
          WHERE (SELECT written.revision FROM ${schema}.memory_card_keys AS written
            WHERE written.scope_key = p_scope AND written.conflict_key = item.conflict_key)
            > p_since)
        OR EXISTS (SELECT 1 FROM unnest(p_ids) AS item(id)
          WHERE (SELECT stored.revision FROM ${schema}.memory_cards AS stored
            WHERE stored.scope_key = p_scope AND stored.id = item.id) > p_since);
    END IF;
${conflictRows(schema)}    IF coalesce(cardinality(p_ids), 0) = 0 THEN
      RETURN QUERY SELECT true, v_head.revision, false, NULL::text, NULL::text, NULL::boolean,
        -1::bigint;
      RETURN;
    END IF;
    v_next := v_head.revision + 1;
${writeCards(schema)}    RETURN QUERY SELECT true, v_next, false, NULL::text, NULL::text, NULL::boolean, -1::bigint;
  END
  $function$`;
}
