// Both list styles (SPEC 4.4 offset, 4.5 cursor) as async iterators.

/** eachOffset walks an offset list: fetchPage(n) (n from 1) returns rows and meta.pages. */
export async function* eachOffset<T>(fetchPage: (page: number) => Promise<{ rows: T[]; pages: number }>): AsyncGenerator<T> {
  for (let page = 1; ; page++) {
    const { rows, pages } = await fetchPage(page);
    yield* rows;
    if (page >= pages || rows.length === 0) return;
  }
}

/** eachCursor walks a cursor feed: fetchPage(cursor) returns rows and nextCursor, null at the end. */
export async function* eachCursor<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ rows: T[]; nextCursor: string | null | undefined }>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const { rows, nextCursor } = await fetchPage(cursor);
    yield* rows;
    if (!nextCursor) return;
    cursor = nextCursor;
  }
}
