/**
 * Every item of a paged list, page after page, following `next_cursor`:
 *
 *   for await (const listing of paginate((cursor) => client.browseListings({ cursor }), (page) => page.listings))
 */
export async function* paginate<Page extends { next_cursor?: string | null }, Item>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  itemsOf: (page: Page) => Item[],
): AsyncGenerator<Item> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* itemsOf(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

/** The items of every page, in one array (mind the size of what you ask for). */
export async function collect<Item>(items: AsyncIterable<Item>, limit = Number.POSITIVE_INFINITY): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) {
    all.push(item);
    if (all.length >= limit) break;
  }
  return all;
}
