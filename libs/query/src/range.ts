// Content-Range and the status of a read, as PostgREST 12 computes them
// (RangeQuery.rangeStatusHeader; RangeSpec.hs):
//   lower = offset (0 when limit=0: PostgREST's "limit zero range")
//   upper = lower + rows returned - 1
//   header "lower-upper/total", with "*" for the range when nothing was
//   returned or the total is 0, and "*" for the total without count=exact;
//   status 416 when lower > total, 206 when fewer rows than the total were
//   returned, else 200 — only with a total; without one it is always 200.
// So: `0-9/42` (206), `0-41/42` (200), `*/0` (200, empty table), `*/15` for
// offset=15 of 15 rows (206) and for offset=100 (416), `0-4/*` and `*/*`
// without count=exact.

export interface RangeAnswer {
  readonly status: 200 | 206 | 416;
  readonly contentRange: string;
  /** with 416, PostgREST's details text */
  readonly message?: string;
}

export function rangeAnswer(offset: number, limit: number | null, returned: number, total: number | null): RangeAnswer {
  const lower = limit === 0 ? 0 : offset;
  const upper = lower + returned - 1;
  const range = total !== 0 && lower <= upper ? `${lower}-${upper}` : '*';
  const contentRange = `${range}/${total === null ? '*' : total}`;
  if (total === null) return { status: 200, contentRange };
  if (lower > total) {
    return { status: 416, contentRange, message: `An offset of ${lower} was requested, but there are only ${total} rows.` };
  }
  return { status: returned < total ? 206 : 200, contentRange };
}
