// pg's own preparation of bound values (pg's package exports `pg/lib/*`; @types/pg does not describe it)
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
