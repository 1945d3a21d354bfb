/**
 * `commit_memory_cards`, the PL/pgSQL function behind `memory.add` (schema version 5): one round
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
export function commitMemoryCardsFunction(schema: string): string {
  return `CREATE FUNCTION ${schema}.commit_memory_cards(
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
    INSERT INTO ${schema}.memory_scopes AS current (scope_key, revision) VALUES (p_scope, 0)
    ON CONFLICT (scope_key) DO UPDATE SET revision = current.revision
    RETURNING current.revision, current.reset_revision, current.keyed_revision, current.keys_from
      INTO v_head;
    v_keys_from := CASE WHEN v_head.keyed_revision <> v_head.revision THEN v_head.revision
      ELSE v_head.keys_from END;
    v_complete := v_head.reset_revision > p_since OR v_head.revision < p_since;
    v_conflict := v_complete;
    IF NOT v_conflict AND v_head.revision <> p_since THEN
      v_conflict := p_since < v_keys_from
        OR EXISTS (SELECT 1 FROM ${schema}.memory_card_keys AS written
          WHERE written.scope_key = p_scope AND written.conflict_key = ANY(p_looked_up)
            AND written.revision > p_since)
        OR EXISTS (SELECT 1 FROM ${schema}.memory_cards AS stored
          WHERE stored.scope_key = p_scope AND stored.id = ANY(p_ids)
            AND stored.revision > p_since);
    END IF;
    v_since := CASE WHEN v_complete THEN -1 ELSE p_since END;
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
    v_next := v_head.revision + 1;
    RETURN QUERY SELECT true, v_next, false, NULL::text, NULL::text, NULL::boolean, -1::bigint;
    RETURN QUERY SELECT NULL::boolean, NULL::bigint, NULL::boolean, stored.id, stored.card, true,
        stored.position
      FROM ${schema}.memory_cards AS stored
      WHERE stored.scope_key = p_scope AND stored.revision > p_since
      ORDER BY stored.position;
    UPDATE ${schema}.memory_scopes
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
  END
  $function$`;
}
