"""Walking the API's cursor-paged lists: every list answers ``{data, has_more, next_cursor}`` and takes
the previous page's ``next_cursor`` as ``after`` (as the TypeScript SDK's ``eachItem``)."""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Optional


def each_item(fetch_page: Callable[[Optional[str]], Mapping[str, Any]], after: Optional[str] = None) -> Iterator[Any]:
    """Each item of the list, page by page: ``fetch_page(after)`` first (None: from the start), then with
    each page's ``next_cursor`` until a page says there is no more. One page is held at a time, so a long
    list streams."""
    while True:
        page = fetch_page(after)
        yield from page["data"]
        cursor = page.get("next_cursor")
        if not page.get("has_more") or not cursor:
            return
        after = cursor
