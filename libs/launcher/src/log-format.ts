// Log lines as the launcher prints them: `name | line`, and pino's JSON made
// readable on a terminal (`12:00:01 INFO  listening {port: 8080}`).
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const PINO_FIELDS = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

export function formatLine(name: string, line: string, pretty: boolean): string {
  const prefix = `${name.padEnd(8)} | `;
  if (!pretty || !line.startsWith('{')) return prefix + line;
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
    const level = LEVELS[Number(entry.level)] ?? String(entry.level ?? '');
    const extras = Object.entries(entry).filter(([key]) => !PINO_FIELDS.has(key));
    const tail = extras.length ? ' ' + JSON.stringify(Object.fromEntries(extras)) : '';
    return `${prefix}${time} ${level} ${entry.msg ?? ''}${tail}`;
  } catch {
    return prefix + line;
  }
}
