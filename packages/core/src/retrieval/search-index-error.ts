/** A saved search index that cannot be read (see `search-index-file.ts`): it is rebuilt. */
export class SearchIndexFileError extends Error {
  static isInstance(error: unknown): error is SearchIndexFileError {
    return error instanceof SearchIndexFileError;
  }
}
