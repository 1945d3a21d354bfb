/**
 * A getter that calls `create` on its first use and returns that value from then on. For what
 * costs time at import but not every importer needs (big regular expressions and tables, modules
 * imported with `import()`): the cost moves to the first caller. A throwing `create` is retried
 * on the next call.
 */
export function lazy<Value>(create: () => Value): () => Value {
  let created = false;
  let value: Value;
  return () => {
    if (!created) {
      value = create();
      created = true;
    }
    return value;
  };
}
